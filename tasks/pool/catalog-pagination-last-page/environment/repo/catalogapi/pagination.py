"""Slicing result lists into pages."""


class PageNotFound(LookupError):
    """Raised when a page number outside 1..total_pages is requested."""


class Page:
    def __init__(self, items, number, per_page, total):
        self.items = list(items)
        self.number = number
        self.per_page = per_page
        self.total = total

    @property
    def total_pages(self):
        return self.total // self.per_page + 1

    @property
    def has_next(self):
        return self.number < self.total_pages

    @property
    def has_prev(self):
        return self.number > 1

    def to_dict(self):
        return {
            "items": self.items,
            "page": self.number,
            "per_page": self.per_page,
            "total": self.total,
            "total_pages": self.total_pages,
            "has_next": self.has_next,
            "has_prev": self.has_prev,
        }

    def __repr__(self):
        return f"<Page {self.number}/{self.total_pages} ({len(self.items)} items)>"


def paginate(items, page=1, per_page=20):
    """Return page number *page* (1-based) of *items*."""
    if per_page < 1:
        raise ValueError("per_page must be >= 1")
    items = list(items)
    total = len(items)
    result = Page([], page, per_page, total)
    if page < 1 or page > result.total_pages:
        raise PageNotFound(f"page {page} does not exist")
    start = (page - 1) * per_page
    result.items = items[start:start + per_page]
    return result

"""Parsing ?page=&per_page= query parameters."""

DEFAULT_PER_PAGE = 20
MAX_PER_PAGE = 100


def _int(value, name):
    try:
        return int(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be an integer, got {value!r}") from None


def parse_page_params(query):
    """Return (page, per_page) from a query-string dict, clamping per_page."""
    page = _int(query.get("page", 1), "page")
    per_page = _int(query.get("per_page", DEFAULT_PER_PAGE), "per_page")
    if page < 1:
        raise ValueError("page must be >= 1")
    per_page = max(1, min(per_page, MAX_PER_PAGE))
    return page, per_page

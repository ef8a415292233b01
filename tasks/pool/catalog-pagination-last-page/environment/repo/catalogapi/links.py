"""RFC 8288 style Link headers for paginated collections."""
from urllib.parse import urlencode


def _url(base_url, page, per_page):
    return f"{base_url}?{urlencode({'page': page, 'per_page': per_page})}"


def build_link_header(base_url, page, per_page, total):
    """Build the Link header value for page *page* of a collection of *total* items."""
    last = (total + per_page) // per_page
    parts = [f'<{_url(base_url, 1, per_page)}>; rel="first"']
    if page > 1:
        parts.append(f'<{_url(base_url, page - 1, per_page)}>; rel="prev"')
    if page < last:
        parts.append(f'<{_url(base_url, page + 1, per_page)}>; rel="next"')
    parts.append(f'<{_url(base_url, last, per_page)}>; rel="last"')
    return ", ".join(parts)

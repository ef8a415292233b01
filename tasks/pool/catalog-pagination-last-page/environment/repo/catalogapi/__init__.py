"""catalogapi - helpers behind the product catalogue HTTP endpoints."""
from .pagination import Page, PageNotFound, paginate
from .links import build_link_header
from .query import parse_page_params

__all__ = ["Page", "PageNotFound", "paginate", "build_link_header", "parse_page_params"]

"""textkit - small text helpers shared by the CMS backend."""
from .slug import slugify, unique_slug
from .filenames import safe_filename
from .wrap import truncate_words

__all__ = ["slugify", "unique_slug", "safe_filename", "truncate_words"]
__version__ = "0.4.2"

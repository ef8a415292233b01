"""URL slug generation."""
import re

_NON_ALNUM = re.compile(r"[^a-z0-9]+")


def slugify(text, sep="-", max_length=None):
    """Turn an article title into a URL slug.

    >>> slugify("Hello, World!")
    'hello-world'
    """
    if text is None:
        raise TypeError("slugify() needs a string, got None")
    slug = _NON_ALNUM.sub(sep, text.lower()).strip(sep)
    if max_length is not None and len(slug) > max_length:
        slug = slug[:max_length].rstrip(sep)
    return slug


def unique_slug(text, existing, sep="-", max_length=None):
    """Return a slug for *text* that is not in *existing* (appends -2, -3, ...)."""
    base = slugify(text, sep=sep, max_length=max_length)
    if base not in existing:
        return base
    n = 2
    while True:
        candidate = f"{base}{sep}{n}"
        if candidate not in existing:
            return candidate
        n += 1

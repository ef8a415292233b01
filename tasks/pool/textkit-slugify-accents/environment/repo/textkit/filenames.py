"""Filenames for uploaded attachments."""
import os
import re

_BAD_CHARS = re.compile(r"[^A-Za-z0-9._ -]+")
_RESERVED = {"con", "prn", "aux", "nul"}


def safe_filename(name, default="file"):
    """Return a filesystem-safe version of an uploaded file's name.

    Keeps the extension, replaces unsafe characters with '_' and never returns
    an empty or reserved name.
    """
    name = os.path.basename(name.replace("\\", "/")).strip()
    stem, ext = os.path.splitext(name)
    stem = _BAD_CHARS.sub("_", stem).strip(" ._")
    ext = _BAD_CHARS.sub("", ext).lower()
    if not stem or stem.lower() in _RESERVED:
        stem = default
    return stem + ext

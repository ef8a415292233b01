"""memo - small in-memory caches for the reporting service."""
from .cache import TTLCache
from .decorators import cached, hashkey

__all__ = ["TTLCache", "cached", "hashkey"]

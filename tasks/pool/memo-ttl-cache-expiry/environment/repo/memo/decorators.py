"""Memoisation decorator on top of TTLCache."""
import functools


def hashkey(*args, **kwargs):
    return args + tuple(sorted(kwargs.items()))


def cached(cache, key=hashkey):
    """Cache the results of the decorated function in *cache*."""

    def decorator(func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            k = key(*args, **kwargs)
            if k in cache:
                return cache[k]
            value = func(*args, **kwargs)
            cache[k] = value
            return value

        wrapper.cache = cache
        return wrapper

    return decorator

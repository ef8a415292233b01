"""Glue between the limiter and our WSGI-ish request handlers."""
import math


class RateLimitMiddleware:
    """Wraps handler(request) -> (status, headers, body)."""

    def __init__(self, handler, limiter, key_func=None):
        self.handler = handler
        self.limiter = limiter
        self.key_func = key_func or (lambda request: request.get("client_ip", "-"))

    def __call__(self, request):
        key = self.key_func(request)
        units = int(request.get("units", 1))
        ok = self.limiter.allow(key) if units == 1 else self.limiter.allow_batch(key, units)
        if not ok:
            wait = math.ceil(self.limiter.retry_after(key))
            return 429, {"Retry-After": str(max(wait, 1))}, "Too Many Requests"
        status, headers, body = self.handler(request)
        headers = dict(headers)
        headers["X-RateLimit-Remaining"] = str(self.limiter.remaining(key))
        return status, headers, body

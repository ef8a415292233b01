"""throttle - in-process request rate limiting for the API gateway."""
from .clock import FakeClock, MonotonicClock
from .window import SlidingWindowLimiter
from .middleware import RateLimitMiddleware

__all__ = ["FakeClock", "MonotonicClock", "SlidingWindowLimiter", "RateLimitMiddleware"]

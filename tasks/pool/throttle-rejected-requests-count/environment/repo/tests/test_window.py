import unittest

from throttle import FakeClock, RateLimitMiddleware, SlidingWindowLimiter


class LimiterTests(unittest.TestCase):
    def setUp(self):
        self.clock = FakeClock()
        self.lim = SlidingWindowLimiter(3, 10, clock=self.clock)

    def test_within_limit(self):
        self.assertTrue(all(self.lim.allow("a") for _ in range(3)))
        self.assertEqual(self.lim.remaining("a"), 0)

    def test_keys_independent(self):
        for _ in range(3):
            self.lim.allow("a")
        self.assertTrue(self.lim.allow("b"))

    def test_window_slides(self):
        for _ in range(3):
            self.lim.allow("a")
        self.clock.advance(10)
        self.assertTrue(self.lim.allow("a"))

    def test_batch(self):
        self.assertTrue(self.lim.allow_batch("a", 2))
        self.assertEqual(self.lim.remaining("a"), 1)
        self.assertFalse(self.lim.allow_batch("a", 5))


class MiddlewareTests(unittest.TestCase):
    def test_headers(self):
        lim = SlidingWindowLimiter(2, 60, clock=FakeClock())
        app = RateLimitMiddleware(lambda r: (200, {}, "ok"), lim)
        status, headers, _ = app({"client_ip": "1.2.3.4"})
        self.assertEqual(status, 200)
        self.assertEqual(headers["X-RateLimit-Remaining"], "1")


if __name__ == "__main__":
    unittest.main()

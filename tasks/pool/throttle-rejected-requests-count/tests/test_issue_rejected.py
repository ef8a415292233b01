import unittest

from throttle import FakeClock, RateLimitMiddleware, SlidingWindowLimiter


class RejectedDoNotCount(unittest.TestCase):
    def setUp(self):
        self.clock = FakeClock()
        self.lim = SlidingWindowLimiter(3, 10, clock=self.clock)

    def test_retrying_client_recovers(self):
        self.assertEqual([self.lim.allow("c") for _ in range(3)], [True] * 3)
        for _ in range(9):
            self.clock.advance(1)
            self.assertFalse(self.lim.allow("c"))
        self.clock.advance(1)
        self.assertTrue(self.lim.allow("c"))
        self.assertEqual(self.lim.remaining("c"), 2)

    def test_rejection_does_not_change_state(self):
        for _ in range(3):
            self.lim.allow("c")
        self.clock.advance(4)
        before = (self.lim.remaining("c"), self.lim.retry_after("c"))
        for _ in range(5):
            self.assertFalse(self.lim.allow("c"))
        self.assertEqual((self.lim.remaining("c"), self.lim.retry_after("c")), before)
        self.assertAlmostEqual(self.lim.retry_after("c"), 6.0)

    def test_staggered(self):
        self.assertTrue(self.lim.allow("c"))          # t=0
        self.clock.advance(3)
        self.assertTrue(self.lim.allow("c"))          # t=3
        self.assertTrue(self.lim.allow("c"))          # t=3
        self.clock.advance(2)
        self.assertFalse(self.lim.allow("c"))         # t=5 rejected
        self.clock.advance(5)
        self.assertTrue(self.lim.allow("c"))          # t=10: t=0 expired
        self.assertFalse(self.lim.allow("c"))
        self.assertAlmostEqual(self.lim.retry_after("c"), 3.0)


class BatchRejectedDoNotCount(unittest.TestCase):
    def setUp(self):
        self.clock = FakeClock()
        self.lim = SlidingWindowLimiter(5, 10, clock=self.clock)

    def test_rejected_batch_consumes_nothing(self):
        self.assertTrue(self.lim.allow_batch("k", 3))
        self.assertFalse(self.lim.allow_batch("k", 3))
        self.assertEqual(self.lim.remaining("k"), 2)
        self.assertTrue(self.lim.allow_batch("k", 2))
        self.assertEqual(self.lim.remaining("k"), 0)

    def test_retrying_batch_recovers(self):
        self.assertTrue(self.lim.allow_batch("k", 4))
        for _ in range(9):
            self.clock.advance(1)
            self.assertFalse(self.lim.allow_batch("k", 2))
            self.assertTrue(self.lim.remaining("k") == 1)
        self.clock.advance(1)
        self.assertTrue(self.lim.allow_batch("k", 5))

    def test_mixed_with_single(self):
        self.assertTrue(self.lim.allow_batch("k", 4))
        self.assertFalse(self.lim.allow_batch("k", 2))
        self.assertTrue(self.lim.allow("k"))
        self.assertFalse(self.lim.allow("k"))

    def test_oversized_and_invalid(self):
        self.assertFalse(self.lim.allow_batch("k", 6))
        self.assertEqual(self.lim.remaining("k"), 5)
        with self.assertRaises(ValueError):
            self.lim.allow_batch("k", 0)


class Regression(unittest.TestCase):
    def test_basic(self):
        clock = FakeClock()
        lim = SlidingWindowLimiter(2, 5, clock=clock)
        self.assertTrue(lim.allow("a"))
        self.assertTrue(lim.allow("a"))
        self.assertTrue(lim.allow("b"))
        self.assertFalse(lim.allow("a"))
        self.assertAlmostEqual(lim.retry_after("a"), 5.0)
        self.assertEqual(lim.retry_after("b"), 0.0)
        clock.advance(5)
        self.assertTrue(lim.allow("a"))
        lim.reset("a")
        self.assertEqual(lim.remaining("a"), 2)

    def test_bad_args(self):
        with self.assertRaises(ValueError):
            SlidingWindowLimiter(0, 1)

    def test_middleware_retry_after(self):
        clock = FakeClock()
        lim = SlidingWindowLimiter(2, 60, clock=clock)
        app = RateLimitMiddleware(lambda r: (200, {}, "ok"), lim)
        req = {"client_ip": "9.9.9.9"}
        self.assertEqual(app(req)[0], 200)
        self.assertEqual(app(req)[0], 200)
        for _ in range(10):
            clock.advance(2)
            status, headers, _ = app(req)
            self.assertEqual(status, 429)
        self.assertEqual(headers["Retry-After"], "40")
        clock.advance(40)
        status, headers, _ = app(req)
        self.assertEqual(status, 200)
        self.assertEqual(headers["X-RateLimit-Remaining"], "1")

    def test_middleware_batch(self):
        clock = FakeClock()
        lim = SlidingWindowLimiter(10, 60, clock=clock)
        app = RateLimitMiddleware(lambda r: (200, {}, "ok"), lim)
        self.assertEqual(app({"client_ip": "x", "units": 8})[0], 200)
        self.assertEqual(app({"client_ip": "x", "units": 5})[0], 429)
        status, headers, _ = app({"client_ip": "x", "units": 2})
        self.assertEqual(status, 200)
        self.assertEqual(headers["X-RateLimit-Remaining"], "0")


if __name__ == "__main__":
    unittest.main()

import unittest

from memo import TTLCache, cached


class Timer:
    def __init__(self):
        self.t = 0.0

    def __call__(self):
        return self.t


class ExpiredInvisible(unittest.TestCase):
    def setUp(self):
        self.timer = Timer()
        self.cache = TTLCache(5, 10, timer=self.timer)

    def test_contains(self):
        self.cache["a"] = 1
        self.timer.t = 9.9
        self.assertIn("a", self.cache)
        self.timer.t = 10
        self.assertNotIn("a", self.cache)
        with self.assertRaises(KeyError):
            self.cache["a"]

    def test_len(self):
        self.cache["a"] = 1
        self.timer.t = 5
        self.cache["b"] = 2
        self.assertEqual(len(self.cache), 2)
        self.timer.t = 12
        self.assertEqual(len(self.cache), 1)
        self.timer.t = 20
        self.assertEqual(len(self.cache), 0)

    def test_decorator_recomputes(self):
        calls = []

        @cached(self.cache)
        def f(x):
            calls.append(x)
            return x * 2

        self.assertEqual(f(4), 8)
        self.timer.t = 3
        self.assertEqual(f(4), 8)
        self.timer.t = 11
        self.assertEqual(f(4), 8)
        self.assertEqual(calls, [4, 4])
        self.timer.t = 15
        self.assertEqual(f(4), 8)
        self.assertEqual(calls, [4, 4])


class EvictExpiredFirst(unittest.TestCase):
    def test_expired_dropped_before_live(self):
        timer = Timer()
        cache = TTLCache(3, 10, timer=timer)
        cache["a"] = "a"          # expires at 10
        timer.t = 5
        cache["b"] = "b"          # expires at 15
        timer.t = 6
        cache["a"]                # a is now more recently used than b
        timer.t = 7
        cache["c"] = "c"          # expires at 17, LRU order: b, a, c
        timer.t = 10.5            # a expired, b and c alive
        cache["d"] = "d"
        self.assertEqual(cache.get("b"), "b")
        self.assertEqual(cache.get("c"), "c")
        self.assertEqual(cache.get("d"), "d")
        self.assertNotIn("a", cache)
        self.assertEqual(len(cache), 3)

    def test_several_expired(self):
        timer = Timer()
        cache = TTLCache(3, 10, timer=timer)
        cache["x"] = 1
        cache["y"] = 2
        timer.t = 8
        cache["z"] = 3
        cache["x"]
        cache["y"]                # LRU order: z, x, y; x and y expire at 10
        timer.t = 11
        cache["n"] = 4
        self.assertEqual(cache.get("z"), 3)
        self.assertEqual(len(cache), 2)

    def test_lru_when_all_live(self):
        timer = Timer()
        cache = TTLCache(2, 10, timer=timer)
        cache["a"] = 1
        cache["b"] = 2
        cache["a"]
        cache["c"] = 3
        self.assertNotIn("b", cache)
        self.assertIn("a", cache)
        self.assertIn("c", cache)


class Regression(unittest.TestCase):
    def test_overwrite_refreshes_ttl(self):
        timer = Timer()
        cache = TTLCache(2, 10, timer=timer)
        cache["a"] = 1
        timer.t = 8
        cache["a"] = 2
        timer.t = 15
        self.assertEqual(cache["a"], 2)
        self.assertEqual(len(cache), 1)

    def test_stats_and_pop(self):
        timer = Timer()
        cache = TTLCache(2, 10, timer=timer)
        cache["a"] = 1
        cache.get("a")
        cache.get("zz")
        self.assertEqual((cache.hits, cache.misses), (1, 1))
        timer.t = 10
        self.assertEqual(cache.pop("a", None), None)
        with self.assertRaises(KeyError):
            cache.pop("a")

    def test_expire(self):
        timer = Timer()
        cache = TTLCache(4, 10, timer=timer)
        cache["a"] = 1
        timer.t = 6
        cache["b"] = 1
        timer.t = 10
        self.assertEqual(cache.expire(), 1)

    def test_bad_args(self):
        with self.assertRaises(ValueError):
            TTLCache(0, 1)
        with self.assertRaises(ValueError):
            TTLCache(1, 0)


if __name__ == "__main__":
    unittest.main()

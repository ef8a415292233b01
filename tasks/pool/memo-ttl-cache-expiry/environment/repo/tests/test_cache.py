import unittest

from memo import TTLCache, cached


class Timer:
    def __init__(self):
        self.t = 0.0

    def __call__(self):
        return self.t


class TTLCacheTests(unittest.TestCase):
    def setUp(self):
        self.timer = Timer()
        self.cache = TTLCache(3, 10, timer=self.timer)

    def test_set_get(self):
        self.cache["a"] = 1
        self.assertEqual(self.cache["a"], 1)
        self.assertIn("a", self.cache)

    def test_get_expired(self):
        self.cache["a"] = 1
        self.timer.t = 10
        self.assertIsNone(self.cache.get("a"))

    def test_lru_eviction(self):
        for k in "abc":
            self.cache[k] = k
        self.cache["a"]
        self.cache["d"] = "d"
        self.assertEqual(self.cache.get("b"), None)
        self.assertEqual(self.cache.get("a"), "a")

    def test_pop(self):
        self.cache["a"] = 1
        self.assertEqual(self.cache.pop("a"), 1)
        self.assertEqual(self.cache.pop("a", 5), 5)


class CachedTests(unittest.TestCase):
    def test_memoises(self):
        calls = []

        @cached(TTLCache(10, 60))
        def square(x):
            calls.append(x)
            return x * x

        self.assertEqual(square(3), 9)
        self.assertEqual(square(3), 9)
        self.assertEqual(calls, [3])


if __name__ == "__main__":
    unittest.main()

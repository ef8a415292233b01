import unittest

from textkit import slugify, unique_slug


class SlugifyTests(unittest.TestCase):
    def test_basic(self):
        self.assertEqual(slugify("Hello, World!"), "hello-world")

    def test_separator(self):
        self.assertEqual(slugify("a b  c", sep="_"), "a_b_c")

    def test_max_length(self):
        self.assertEqual(slugify("one two three", max_length=7), "one-two")

    def test_none(self):
        with self.assertRaises(TypeError):
            slugify(None)

    def test_unique(self):
        self.assertEqual(unique_slug("News", {"news", "news-2"}), "news-3")


if __name__ == "__main__":
    unittest.main()

import unittest

from catalogapi import build_link_header


class LinkHeaderTests(unittest.TestCase):
    def test_middle_page(self):
        header = build_link_header("/products", 2, 10, 25)
        self.assertIn('</products?page=1&per_page=10>; rel="prev"', header)
        self.assertIn('</products?page=3&per_page=10>; rel="next"', header)
        self.assertIn('</products?page=3&per_page=10>; rel="last"', header)


if __name__ == "__main__":
    unittest.main()

import unittest

from catalogapi import PageNotFound, paginate, parse_page_params


class PaginateTests(unittest.TestCase):
    def test_first_page(self):
        page = paginate(range(45), page=1, per_page=20)
        self.assertEqual(page.items, list(range(20)))
        self.assertEqual(page.total_pages, 3)
        self.assertTrue(page.has_next)
        self.assertFalse(page.has_prev)

    def test_partial_last_page(self):
        page = paginate(range(45), page=3, per_page=20)
        self.assertEqual(page.items, list(range(40, 45)))
        self.assertFalse(page.has_next)

    def test_out_of_range(self):
        with self.assertRaises(PageNotFound):
            paginate(range(45), page=4, per_page=20)

    def test_bad_per_page(self):
        with self.assertRaises(ValueError):
            paginate([1, 2], per_page=0)


class QueryTests(unittest.TestCase):
    def test_defaults(self):
        self.assertEqual(parse_page_params({}), (1, 20))

    def test_clamp(self):
        self.assertEqual(parse_page_params({"page": "2", "per_page": "500"}), (2, 100))


if __name__ == "__main__":
    unittest.main()

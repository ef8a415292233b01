import unittest

from catalogapi import PageNotFound, paginate, build_link_header, parse_page_params


class ExactMultiple(unittest.TestCase):
    def test_total_pages(self):
        for n, per, pages in [(40, 20, 2), (20, 20, 1), (1, 1, 1), (100, 10, 10), (99, 10, 10), (101, 10, 11)]:
            with self.subTest(n=n, per=per):
                self.assertEqual(paginate(range(n), 1, per).total_pages, pages)

    def test_last_page_flags(self):
        page = paginate(range(40), page=2, per_page=20)
        self.assertEqual(page.items, list(range(20, 40)))
        self.assertFalse(page.has_next)
        self.assertTrue(page.has_prev)
        self.assertEqual(page.to_dict()["total_pages"], 2)

    def test_phantom_page_is_not_found(self):
        with self.assertRaises(PageNotFound):
            paginate(range(40), page=3, per_page=20)


class EmptyCollection(unittest.TestCase):
    def test_empty_has_one_page(self):
        page = paginate([], page=1, per_page=20)
        self.assertEqual(page.items, [])
        self.assertEqual(page.total_pages, 1)
        self.assertFalse(page.has_next)
        self.assertFalse(page.has_prev)

    def test_empty_page_two(self):
        with self.assertRaises(PageNotFound):
            paginate([], page=2, per_page=20)


class Regression(unittest.TestCase):
    def test_partial(self):
        page = paginate(range(45), page=3, per_page=20)
        self.assertEqual(page.items, list(range(40, 45)))
        self.assertEqual(page.total_pages, 3)
        self.assertFalse(page.has_next)

    def test_bad_input(self):
        with self.assertRaises(PageNotFound):
            paginate(range(5), page=0, per_page=2)
        with self.assertRaises(ValueError):
            paginate(range(5), per_page=0)

    def test_query(self):
        self.assertEqual(parse_page_params({"page": "3", "per_page": "0"}), (3, 1))


class LinkHeader(unittest.TestCase):
    def rels(self, header):
        out = {}
        for part in header.split(", "):
            url, rel = part.split("; ")
            out[rel[len('rel="'):-1]] = url.strip("<>")
        return out

    def test_exact_multiple(self):
        rels = self.rels(build_link_header("/products", 2, 20, 40))
        self.assertNotIn("next", rels)
        self.assertEqual(rels["last"], "/products?page=2&per_page=20")
        self.assertEqual(rels["prev"], "/products?page=1&per_page=20")

    def test_partial(self):
        rels = self.rels(build_link_header("/products", 2, 10, 25))
        self.assertEqual(rels["next"], "/products?page=3&per_page=10")
        self.assertEqual(rels["last"], "/products?page=3&per_page=10")

    def test_empty(self):
        rels = self.rels(build_link_header("/products", 1, 20, 0))
        self.assertEqual(set(rels), {"first", "last"})
        self.assertEqual(rels["last"], "/products?page=1&per_page=20")

    def test_first_page_of_many(self):
        rels = self.rels(build_link_header("/p", 1, 10, 30))
        self.assertEqual(rels["next"], "/p?page=2&per_page=10")
        self.assertEqual(rels["last"], "/p?page=3&per_page=10")
        self.assertNotIn("prev", rels)


if __name__ == "__main__":
    unittest.main()

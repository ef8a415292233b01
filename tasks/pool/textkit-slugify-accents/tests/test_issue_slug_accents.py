import unittest

from textkit import slugify, unique_slug, safe_filename, truncate_words


class SlugFolding(unittest.TestCase):
    def test_french(self):
        self.assertEqual(slugify("Crème brûlée à la carte"), "creme-brulee-a-la-carte")

    def test_sharp_s(self):
        self.assertEqual(slugify("Große Straße"), "grosse-strasse")

    def test_mixed(self):
        self.assertEqual(slugify("Ångström & Čapek: naïve café"), "angstrom-capek-naive-cafe")

    def test_separator_and_length(self):
        self.assertEqual(slugify("Élan vital über alles", sep="_", max_length=16), "elan_vital_uber")

    def test_unique(self):
        self.assertEqual(unique_slug("Café", {"cafe"}), "cafe-2")


class SlugRegression(unittest.TestCase):
    def test_basic(self):
        self.assertEqual(slugify("Hello, World!"), "hello-world")
        self.assertEqual(slugify("  --Already-a-slug--  "), "already-a-slug")

    def test_max_length(self):
        self.assertEqual(slugify("one two three", max_length=7), "one-two")

    def test_none(self):
        with self.assertRaises(TypeError):
            slugify(None)

    def test_unique(self):
        self.assertEqual(unique_slug("News", {"news", "news-2"}), "news-3")
        self.assertEqual(unique_slug("News", set()), "news")


class FilenameFolding(unittest.TestCase):
    def test_german(self):
        self.assertEqual(safe_filename("Überweisung März.pdf"), "Uberweisung Marz.pdf")

    def test_french_keeps_case(self):
        self.assertEqual(safe_filename("Reçu Élodie.JPG"), "Recu Elodie.jpg")

    def test_sharp_s(self):
        self.assertEqual(safe_filename("Straße.txt"), "Strasse.txt")


class FilenameRegression(unittest.TestCase):
    def test_keeps_extension(self):
        self.assertEqual(safe_filename("report 2024.PDF"), "report 2024.pdf")

    def test_strips_path(self):
        self.assertEqual(safe_filename("C:\\Users\\x\\notes.txt"), "notes.txt")
        self.assertEqual(safe_filename("../../etc/passwd"), "passwd")

    def test_reserved_and_empty(self):
        self.assertEqual(safe_filename("con.txt"), "file.txt")
        self.assertEqual(safe_filename("???.txt"), "file.txt")

    def test_unsafe_chars(self):
        self.assertEqual(safe_filename("a<b>c.txt"), "a_b_c.txt")

    def test_truncate(self):
        self.assertEqual(truncate_words("the quick brown fox", 12), "the quick...")


if __name__ == "__main__":
    unittest.main()

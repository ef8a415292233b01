import unittest

from textkit import safe_filename, truncate_words


class SafeFilenameTests(unittest.TestCase):
    def test_keeps_extension(self):
        self.assertEqual(safe_filename("report 2024.PDF"), "report 2024.pdf")

    def test_strips_path(self):
        self.assertEqual(safe_filename("C:\\Users\\x\\notes.txt"), "notes.txt")

    def test_reserved(self):
        self.assertEqual(safe_filename("con.txt"), "file.txt")


class TruncateTests(unittest.TestCase):
    def test_truncate(self):
        self.assertEqual(truncate_words("the quick brown fox", 12), "the quick...")


if __name__ == "__main__":
    unittest.main()

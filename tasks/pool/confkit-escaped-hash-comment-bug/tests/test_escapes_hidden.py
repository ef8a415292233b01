import unittest

from confkit import ConfigError, loads


def val(line):
    return loads(line + "\n")["default"]["k"]


class EscapeTest(unittest.TestCase):
    def test_escaped_hash_is_literal(self):
        self.assertEqual(val(r"k = abc\#123"), "abc#123")

    def test_escaped_hash_then_comment(self):
        self.assertEqual(val(r"k = s3cr\#t    # the password"), "s3cr#t")

    def test_several_escaped_hashes(self):
        self.assertEqual(val(r"k = \#\#x\#"), "##x#")

    def test_escaped_backslash_then_comment(self):
        # "\\" is a literal backslash, so the following '#' is a real comment
        self.assertEqual(val(r"k = dir\\# comment"), "dir\\")

    def test_escaped_backslash_then_escaped_hash(self):
        self.assertEqual(val(r"k = a\\\#b"), "a\\#b")

    def test_four_backslashes_then_comment(self):
        self.assertEqual(val(r"k = a\\\\#c"), "a\\\\")

    def test_windows_path_kept(self):
        self.assertEqual(val(r"k = C:\temp\new\logs"), r"C:\temp\new\logs")

    def test_windows_path_with_comment(self):
        self.assertEqual(val(r"k = C:\temp\logs   # where logs go"), r"C:\temp\logs")

    def test_trailing_lone_backslash(self):
        self.assertEqual(val("k = C:\\"), "C:\\")

    def test_unescaped_hash_still_comment(self):
        self.assertEqual(val("k = http://host/path#frag"), "http://host/path")

    def test_escaped_hash_in_section_file(self):
        cfg = loads("[auth]\ntoken = ab\\#cd # rotated monthly\n[x]\ny = 1 # c\n")
        self.assertEqual(cfg["auth"]["token"], "ab#cd")
        self.assertEqual(cfg["x"]["y"], "1")

    def test_errors_still_raised(self):
        with self.assertRaises(ConfigError) as cm:
            loads("a = 1\n\\# not a pair\n")
        self.assertEqual(cm.exception.lineno, 2)


if __name__ == "__main__":
    unittest.main()

import unittest

from confkit import ConfigError, loads


class ParserTest(unittest.TestCase):
    def test_sections_and_default(self):
        cfg = loads("a = 1\n[db]\nhost = x\n[db]\nport = 5432\n")
        self.assertEqual(cfg, {"default": {"a": "1"}, "db": {"host": "x", "port": "5432"}})

    def test_comments(self):
        cfg = loads("# top\n; semi\nk = v  # trailing\nurl = a;b\n")
        self.assertEqual(cfg["default"], {"k": "v", "url": "a;b"})

    def test_whitespace_and_override(self):
        cfg = loads("  key   =   some value  \nkey = other\n")
        self.assertEqual(cfg["default"]["key"], "other")

    def test_equals_in_value(self):
        self.assertEqual(loads("expr = a=b\n")["default"]["expr"], "a=b")

    def test_errors(self):
        for text, lineno in [("[db\n", 1), ("ok = 1\nnot a pair\n", 2), ("[]\n", 1), (" = v\n", 1)]:
            with self.assertRaises(ConfigError) as cm:
                loads(text)
            self.assertEqual(cm.exception.lineno, lineno)


if __name__ == "__main__":
    unittest.main()

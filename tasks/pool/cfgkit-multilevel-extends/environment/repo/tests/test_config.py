import unittest

from cfgkit import Config, ConfigError, parse

SAMPLE = """
# shared defaults
[base]
host = 0.0.0.0
port = 8000
debug = off
url = http://${host}:${port}

[dev]
extends = base
debug = on
"""


class ParserTests(unittest.TestCase):
    def test_parse(self):
        sections = parse(SAMPLE)
        self.assertEqual(list(sections), ["base", "dev"])
        self.assertEqual(sections["dev"], {"extends": "base", "debug": "on"})

    def test_key_outside_section(self):
        with self.assertRaises(ConfigError):
            parse("a = 1\n")

    def test_duplicate_section(self):
        with self.assertRaises(ConfigError):
            parse("[a]\n[a]\n")


class ConfigTests(unittest.TestCase):
    def setUp(self):
        self.cfg = Config.from_string(SAMPLE)

    def test_inherit(self):
        self.assertEqual(self.cfg.getint("dev", "port"), 8000)
        self.assertTrue(self.cfg.getbool("dev", "debug"))
        self.assertFalse(self.cfg.getbool("base", "debug"))

    def test_extends_key_hidden(self):
        self.assertNotIn("extends", self.cfg.section("dev"))

    def test_interpolation(self):
        self.assertEqual(self.cfg.get("dev", "url"), "http://0.0.0.0:8000")

    def test_unknown_base(self):
        cfg = Config.from_string("[a]\nextends = nope\n")
        with self.assertRaises(ConfigError):
            cfg.section("a")


if __name__ == "__main__":
    unittest.main()

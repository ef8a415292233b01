import unittest

from cfgkit import Config, ConfigError, parse, resolve_section

LAYERED = """
[base]
host = 0.0.0.0
port = 8000
workers = 2
url = http://${host}:${port}

[staging]
extends = base
host = staging.internal
workers = 4

[prod-eu]
extends = staging
host = eu.example.com

[prod-eu-canary]
extends = prod-eu
workers = 1
"""


class Transitive(unittest.TestCase):
    def setUp(self):
        self.cfg = Config.from_string(LAYERED)

    def test_three_levels(self):
        self.assertEqual(self.cfg.section("prod-eu"), {
            "host": "eu.example.com", "port": "8000", "workers": "4",
            "url": "http://eu.example.com:8000"})

    def test_four_levels(self):
        sec = self.cfg.section("prod-eu-canary")
        self.assertEqual(sec["workers"], "1")
        self.assertEqual(sec["port"], "8000")
        self.assertEqual(self.cfg.get("prod-eu-canary", "url"), "http://eu.example.com:8000")
        self.assertNotIn("extends", sec)

    def test_intermediate_unchanged(self):
        self.assertEqual(self.cfg.get("staging", "url"), "http://staging.internal:8000")
        self.assertEqual(self.cfg.getint("base", "workers"), 2)

    def test_resolve_section_public(self):
        sections = parse(LAYERED)
        self.assertEqual(resolve_section(sections, "prod-eu"), {
            "host": "eu.example.com", "port": "8000", "workers": "4",
            "url": "http://${host}:${port}"})
        # the parsed data itself must not be mutated
        self.assertEqual(sections["prod-eu"], {"extends": "staging", "host": "eu.example.com"})


class Errors(unittest.TestCase):
    def test_unknown_base_deep(self):
        cfg = Config.from_string("[a]\nextends = b\n[b]\nextends = missing\n")
        with self.assertRaises(ConfigError):
            cfg.section("a")

    def test_two_cycle(self):
        cfg = Config.from_string("[a]\nextends = b\nx = 1\n[b]\nextends = a\ny = 2\n")
        with self.assertRaises(ConfigError):
            cfg.section("a")
        with self.assertRaises(ConfigError):
            resolve_section(parse("[a]\nextends = b\n[b]\nextends = a\n"), "b")

    def test_self_cycle(self):
        with self.assertRaises(ConfigError):
            Config.from_string("[a]\nextends = a\n").section("a")

    def test_long_cycle(self):
        text = "[a]\nextends = b\n[b]\nextends = c\n[c]\nextends = d\n[d]\nextends = b\n"
        with self.assertRaises(ConfigError):
            Config.from_string(text).section("a")

    def test_unknown_section(self):
        with self.assertRaises(ConfigError):
            resolve_section({}, "x")


class Regression(unittest.TestCase):
    def test_single_level(self):
        cfg = Config.from_string("[base]\nport = 1\ndebug = off\n[dev]\nextends = base\ndebug = on\n")
        self.assertEqual(cfg.section("dev"), {"port": "1", "debug": "on"})
        self.assertTrue(cfg.getbool("dev", "debug"))

    def test_diamond_like_reuse(self):
        text = "[root]\na = 1\n[x]\nextends = root\n[y]\nextends = root\n"
        cfg = Config.from_string(text)
        self.assertEqual(cfg.get("x", "a"), "1")
        self.assertEqual(cfg.get("y", "a"), "1")

    def test_undefined_reference(self):
        with self.assertRaises(ConfigError):
            Config.from_string("[a]\nu = ${nope}\n").section("a")


if __name__ == "__main__":
    unittest.main()

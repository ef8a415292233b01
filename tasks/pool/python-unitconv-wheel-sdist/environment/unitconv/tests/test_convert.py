import unittest

from unitconv import convert


class ConvertTest(unittest.TestCase):
    def test_length(self):
        self.assertAlmostEqual(convert(1, "mi", "km"), 1.609344)

    def test_temperature(self):
        self.assertAlmostEqual(convert(100, "C", "F"), 212.0, places=6)


if __name__ == "__main__":
    unittest.main()

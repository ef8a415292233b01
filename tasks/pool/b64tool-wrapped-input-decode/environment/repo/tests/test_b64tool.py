import os
import subprocess
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "b64tool")


def run(flag, data):
    return subprocess.run([BIN, flag], input=data, capture_output=True)


class B64ToolTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        subprocess.run(["make", "-s", "-C", ROOT], check=True)

    def test_encode(self):
        self.assertEqual(run("-e", b"Man").stdout, b"TWFu\n")
        self.assertEqual(run("-e", b"Ma").stdout, b"TWE=\n")
        self.assertEqual(run("-e", b"").stdout, b"\n")

    def test_decode(self):
        self.assertEqual(run("-d", b"aGVsbG8gd29ybGQh\n").stdout, b"hello world!")

    def test_invalid(self):
        self.assertEqual(run("-d", b"aGV*bG8=\n").returncode, 1)


if __name__ == "__main__":
    unittest.main()

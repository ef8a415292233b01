import os
import subprocess
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "u8")


def run(args, data):
    return subprocess.run([BIN, *args], input=data, capture_output=True)


class U8Tests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        subprocess.run(["make", "-s", "-C", ROOT], check=True)

    def test_check_valid(self):
        r = run(["check"], "grüße, 日本, 🙂\n".encode())
        self.assertEqual(r.returncode, 0)

    def test_check_invalid(self):
        r = run(["check"], b"ok\nbad \xff here\n")
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stdout, b"-:2:5: invalid UTF-8\n")

    def test_truncated_sequence(self):
        self.assertEqual(run(["check"], b"abc\xe2\x82").returncode, 1)

    def test_trunc_ascii(self):
        self.assertEqual(run(["trunc", "5"], b"hello world\nhi\n").stdout, b"hello\nhi\n")

    def test_count(self):
        self.assertEqual(run(["count"], "grüße\n".encode()).stdout, b"5\n")


if __name__ == "__main__":
    unittest.main()

import base64
import os
import random
import subprocess
import unittest

BIN = "/app/b64tool"


def setUpModule():
    subprocess.run(["make", "-B", "-s", "-C", "/app"], check=True, timeout=120)
    assert os.access(BIN, os.X_OK)


def run(flag, data):
    return subprocess.run([BIN, flag], input=data, capture_output=True, timeout=10)


class Wrapped(unittest.TestCase):
    def test_roundtrip_sizes(self):
        rng = random.Random(2024)
        for size in list(range(0, 70)) + [76, 77, 114, 200, 1000, 4097]:
            data = bytes(rng.randrange(256) for _ in range(size))
            wrapped = base64.encodebytes(data)
            with self.subTest(size=size):
                r = run("-d", wrapped)
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertEqual(r.stdout, data)

    def test_crlf_and_spaces(self):
        data = bytes(range(256)) * 3
        crlf = base64.encodebytes(data).replace(b"\n", b"\r\n")
        self.assertEqual(run("-d", crlf).stdout, data)
        spaced = b"  aGVs\tbG8g\r\n d29y bGQh \n\n"
        self.assertEqual(run("-d", spaced).stdout, b"hello world!")


class Padding(unittest.TestCase):
    def test_exact_output(self):
        self.assertEqual(run("-d", b"TWE=\n").stdout, b"Ma")
        self.assertEqual(run("-d", b"TQ==\n").stdout, b"M")
        self.assertEqual(run("-d", b"TWFu\n").stdout, b"Man")
        self.assertEqual(run("-d", b"TWE=").stdout, b"Ma")

    def test_unpadded(self):
        self.assertEqual(run("-d", b"TWE\n").stdout, b"Ma")
        self.assertEqual(run("-d", b"TQ").stdout, b"M")

    def test_single_line_roundtrip(self):
        rng = random.Random(7)
        for size in range(1, 40):
            data = bytes(rng.randrange(256) for _ in range(size))
            self.assertEqual(run("-d", base64.b64encode(data) + b"\n").stdout, data, size)


class StillStrict(unittest.TestCase):
    def test_invalid(self):
        for bad in [b"aGV*bG8=\n", b"TQ===\n", b"TQ==TQ==\n", b"TW=E\n", b"T\x00WE=\n", b"TWE-\n"]:
            with self.subTest(bad=bad):
                r = run("-d", bad)
                self.assertEqual(r.returncode, 1)
                self.assertEqual(r.stdout, b"")


class Encoder(unittest.TestCase):
    def test_encode_unchanged(self):
        rng = random.Random(11)
        for size in (0, 1, 2, 3, 57, 100):
            data = bytes(rng.randrange(256) for _ in range(size))
            self.assertEqual(run("-e", data).stdout, base64.b64encode(data) + b"\n")

    def test_roundtrip_tool(self):
        data = os.urandom(0) + bytes(range(200))
        enc = run("-e", data).stdout
        self.assertEqual(run("-d", enc).stdout, data)


if __name__ == "__main__":
    unittest.main()

import os
import random
import subprocess
import unittest

HARNESS = "/tmp/u8_harness"


def setUpModule():
    subprocess.run(["make", "-B", "-s", "-C", "/app"], check=True, timeout=120)
    subprocess.run(["gcc", "-std=c99", "-O1", "-I/app/src", "-o", HARNESS,
                    os.path.join(os.path.dirname(os.path.abspath(__file__)), "harness.c"),
                    "/app/libu8.a"], check=True, timeout=120)


def harness(lines):
    out = subprocess.run([HARNESS], input="".join(l + "\n" for l in lines), capture_output=True,
                         text=True, timeout=60, check=True).stdout.split()
    assert len(out) == len(lines)
    return [int(x) for x in out]


def valid_prefix(data):
    try:
        data.decode("utf-8")
        return len(data)
    except UnicodeDecodeError as e:
        return e.start


def V(data):
    return harness(["V " + data.hex()])[0]


def T(data, k):
    return harness([f"T {k} " + data.hex()])[0]


class Overlong(unittest.TestCase):
    def test_rejected(self):
        for bad in [b"\xc0\xaf", b"\xc1\xbf", b"\xe0\x80\xaf", b"\xe0\x9f\xbf", b"\xf0\x80\x80\xaf",
                    b"\xf0\x8f\xbf\xbf", b"\xc0\x80"]:
            with self.subTest(bad=bad.hex()):
                self.assertEqual(V(b"ab" + bad + b"cd"), 2)

    def test_shortest_forms_ok(self):
        for good in ["\x7f", "\x80", "\u07ff", "\u0800", "\uffff", "\U00010000", "\U0010ffff", "\ud7ff", "\ue000"]:
            data = good.encode("utf-8", "surrogatepass")
            self.assertEqual(V(data), len(data), data.hex())

    def test_cli(self):
        subprocess.run(["make", "-s", "-C", "/app"], check=True)
        r = subprocess.run(["/app/u8", "check"], input=b"ok\npath \xc0\xaf etc\n", capture_output=True)
        self.assertEqual((r.returncode, r.stdout), (1, b"-:2:6: invalid UTF-8\n"))


class SurrogatesAndRange(unittest.TestCase):
    def test_surrogates(self):
        for bad in [b"\xed\xa0\x80", b"\xed\xbf\xbf", b"\xed\xb0\x80"]:
            self.assertEqual(V(b"x" + bad), 1, bad.hex())
        self.assertEqual(V(b"\xed\x9f\xbf"), 3)

    def test_above_max(self):
        for bad in [b"\xf4\x90\x80\x80", b"\xf5\x80\x80\x80", b"\xf7\xbf\xbf\xbf", b"\xf8\x88\x80\x80\x80", b"\xff"]:
            self.assertEqual(V(b"ok" + bad), 2, bad.hex())
        self.assertEqual(V(b"\xf4\x8f\xbf\xbf"), 4)


class RandomValidation(unittest.TestCase):
    def test_fuzz(self):
        rng = random.Random(8)
        pieces = [b"a", b"\xc3\xa9", b"\xe2\x82\xac", b"\xf0\x9f\x99\x82", b"\xc0\xaf", b"\xe0\x80\x80",
                  b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\x80", b"\xbf", b"\xfe", b"\xe2\x82", b"\xf0\x9f",
                  b"\xc2", b"\xef\xbf\xbf", b"\xf4\x8f\xbf\xbf", b"\xed\x9f\xbf", b"\xee\x80\x80"]
        cases = []
        for _ in range(3000):
            data = b"".join(rng.choice(pieces) for _ in range(rng.randint(0, 8)))
            if rng.random() < 0.3:
                data = bytes(rng.randrange(256) for _ in range(rng.randint(0, 6)))
            cases.append(data)
        got = harness(["V " + d.hex() for d in cases])
        for data, g in zip(cases, got):
            self.assertEqual(g, valid_prefix(data), data.hex())


class Truncate(unittest.TestCase):
    def test_examples(self):
        s = "héllo wörld".encode()
        self.assertEqual(T(s, 2), 1)          # 'h' + first byte of 'é' would split it
        self.assertEqual(T(s, 3), 3)          # 'hé' fits exactly
        self.assertEqual(T(s, 100), len(s))
        self.assertEqual(T("🙂🙂".encode(), 7), 4)
        self.assertEqual(T("🙂🙂".encode(), 8), 8)
        self.assertEqual(T(b"abc", 0), 0)

    def test_random(self):
        rng = random.Random(21)
        alphabet = "aé€🙂日ß "
        lines, want = [], []
        for _ in range(1500):
            s = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 10))).encode()
            k = rng.randint(0, len(s) + 2)
            best = max(i for i in range(0, min(k, len(s)) + 1) if valid_prefix(s[:i]) == i)
            lines.append(f"T {k} " + s.hex())
            want.append(best)
        self.assertEqual(harness(lines), want)

    def test_cli(self):
        r = subprocess.run(["/app/u8", "trunc", "2"], input="héllo\nwörld\n".encode(), capture_output=True)
        self.assertEqual(r.stdout, "h\nw\n".encode())
        r = subprocess.run(["/app/u8", "trunc", "3"], input="héllo\n🙂x\n".encode(), capture_output=True)
        self.assertEqual(r.stdout, "hé\n\n".encode())


class Regression(unittest.TestCase):
    def test_count(self):
        self.assertEqual(harness(["C " + "grüße 🙂".encode().hex(), "C "]), [7, 0])

    def test_cli(self):
        r = subprocess.run(["/app/u8", "check"], input="grüße, 日本, 🙂\n".encode(), capture_output=True)
        self.assertEqual(r.returncode, 0)
        r = subprocess.run(["/app/u8", "check"], input=b"ok\nbad \xff here\n", capture_output=True)
        self.assertEqual((r.returncode, r.stdout), (1, b"-:2:5: invalid UTF-8\n"))
        self.assertEqual(V(b"abc\xe2\x82"), 3)


if __name__ == "__main__":
    unittest.main()

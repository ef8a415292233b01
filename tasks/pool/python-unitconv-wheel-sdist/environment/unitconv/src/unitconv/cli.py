import argparse
import sys

from . import __version__
from .convert import convert, known_units


def main(argv=None):
    p = argparse.ArgumentParser(prog="unitconv")
    p.add_argument("--version", action="version", version=f"unitconv {__version__}")
    p.add_argument("--list", action="store_true", help="list known units")
    p.add_argument("value", nargs="?", type=float)
    p.add_argument("src", nargs="?")
    p.add_argument("dst", nargs="?")
    a = p.parse_args(argv)
    if a.list:
        print("\n".join(known_units()))
        return 0
    if a.dst is None:
        p.error("VALUE SRC DST required")
    try:
        r = convert(a.value, a.src, a.dst)
    except (KeyError, ValueError) as e:
        print(f"unitconv: {e.args[0]}", file=sys.stderr)
        return 1
    print(f"{r:.6g} {a.dst}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

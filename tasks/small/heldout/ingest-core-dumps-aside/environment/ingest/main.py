from core import parse

import sys

for line in sys.stdin:
    print(parse(line.rstrip()))

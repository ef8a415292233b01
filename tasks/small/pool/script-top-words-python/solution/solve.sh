#!/bin/bash
set -e
# step: write the word counter
cat > /app/topwords.py <<'PY'
import re
import sys
from collections import Counter

path, n = sys.argv[1], int(sys.argv[2])
counts = Counter(re.findall(r"[a-z]+", open(path).read().lower()))
for word, count in counts.most_common(n):
    print(count, word)
PY
# step[easy-to-miss]: break ties alphabetically
python3 - <<'PY'
p = "/app/topwords.py"
s = open(p).read()
s = s.replace("for word, count in counts.most_common(n):",
              "for word, count in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:n]:")
open(p, "w").write(s)
PY
python3 /app/topwords.py /app/sample.txt 3

#!/bin/bash
set -e
# step[easy-to-miss]: write the converter, always printing one decimal
cat > /app/c2f.py <<'PY'
#!/usr/bin/env python3
import sys
c = float(sys.argv[1])
print(f"{c * 9 / 5 + 32:.1f}")
PY
# step: make it executable
chmod +x /app/c2f.py
/app/c2f.py 100

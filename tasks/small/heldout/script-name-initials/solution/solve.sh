#!/bin/bash
set -e
# step[easy-to-miss]: write the script (upper-case initials, any run of spaces between parts)
cat > /app/initials.py <<'PY'
#!/usr/bin/env python3
import sys
print("".join(part[0].upper() + "." for part in sys.argv[1].split()))
PY
# step: make it executable
chmod +x /app/initials.py
/app/initials.py "grace brewster hopper"

"""The greeting of /app/greet.py, run as a subprocess for two names."""

import subprocess
import sys

for name in ("Ada", "Grace Hopper"):
    out = subprocess.run([sys.executable, "-s", "/app/greet.py", name], capture_output=True, text=True).stdout
    if out != f"Hello, {name}!\n":
        sys.exit(f"greet.py {name!r} printed {out!r}")

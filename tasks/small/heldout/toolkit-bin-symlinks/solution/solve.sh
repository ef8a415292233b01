#!/bin/bash
set -e
# step: see what is there
ls -l /app/opt/toolkit-1.2/bin /app/bin
# step[easy-to-miss]: link every executable, replacing stale links (-f)
for f in /app/opt/toolkit-1.2/bin/*; do
  if [ -f "$f" ] && [ -x "$f" ]; then ln -sfn "$f" "/app/bin/$(basename "$f")"; fi
done
ls -l /app/bin

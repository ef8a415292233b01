#!/usr/bin/env bash
# Print the path of a Python 3.12 interpreter: on PATH first, then under pyenv, then common places.
set -u
want="3.12"
candidates=(python3.12 "$HOME"/.pyenv/versions/3.12*/bin/python3.12 /root/.pyenv/versions/3.12*/bin/python3.12
            /usr/local/bin/python3.12 /usr/bin/python3.12 python3)
for c in "${candidates[@]}"; do
  p=$(command -v "$c" 2>/dev/null) || continue
  v=$("$p" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null) || continue
  if [ "$v" = "$want" ]; then echo "$p"; exit 0; fi
done
echo "error: no Python $want found on PATH or under ~/.pyenv/versions; install it (pyenv install 3.12, or your distribution's python3.12 package) and retry" >&2
exit 1

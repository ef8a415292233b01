#!/bin/bash
set -e
# step[easy-to-miss]: write the merge script (only *.conf drop-ins, C-locale order, single quotes literal)
cat > /app/merge_env.py <<'PY'
import os, re, sys
cfg = "/app/config"
files = [os.path.join(cfg, "app.env")]
files += [os.path.join(cfg, "env.d", n) for n in sorted(os.listdir(os.path.join(cfg, "env.d")), key=lambda s: s.encode())
          if n.endswith(".conf") and os.path.isfile(os.path.join(cfg, "env.d", n))]
env = {}
ref = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
for path in files:
    for raw in open(path):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("export "):
            line = line[len("export "):].lstrip()
        key, sep, val = line.partition("=")
        if not sep:
            continue
        key = key.strip()
        if len(val) >= 2 and val[0] == val[-1] == "'":
            val = val[1:-1]
        else:
            if len(val) >= 2 and val[0] == val[-1] == '"':
                val = val[1:-1]
            val = ref.sub(lambda m: env.get(m.group(1), ""), val)
        env[key] = val
with open("/app/effective.env", "w") as out:
    for k in sorted(env, key=lambda s: s.encode()):
        out.write(f"{k}={env[k]}\n")
PY
# step: run it to produce /app/effective.env
python3 /app/merge_env.py
cat /app/effective.env

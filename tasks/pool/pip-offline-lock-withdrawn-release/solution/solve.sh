#!/bin/bash
set -e
cd /app/service
# step: create the virtual environment (the system pip installs into it)
python3 -m venv --without-pip .venv
# step: resolve and install from the local mirror only, then freeze the lock
python3 -m pip --python .venv/bin/python install --no-index --find-links /app/wheelhouse -r requirements.in
python3 -m pip --python .venv/bin/python freeze | sort -f > requirements.lock
# step[easy-to-miss]: exclude the withdrawn releases, re-resolve into a fresh venv and re-lock
awk '!/^#/ && NF >= 2 {print $1 "!=" $2}' WITHDRAWN.txt > /tmp/withdrawn-constraints.txt
rm -rf .venv
python3 -m venv --without-pip .venv
python3 -m pip --python .venv/bin/python install --no-index --find-links /app/wheelhouse -r requirements.in -c /tmp/withdrawn-constraints.txt
python3 -m pip --python .venv/bin/python freeze | sort -f > requirements.lock
cat requirements.lock
.venv/bin/python app.py

#!/bin/bash
set -e
cd /app/unitconv
# step: bump the version to the release number
sed -i 's/^version = "1.4.0.dev0"/version = "1.4.0"/' pyproject.toml
# step: ship the tests directory in the sdist
printf 'recursive-include tests *.py\n' > MANIFEST.in
# step: build wheel and sdist offline with the system setuptools
rm -rf /app/dist build src/*.egg-info && mkdir -p /app/dist
python3 -m pip wheel --no-index --no-build-isolation --no-deps -w /app/dist .
python3 -c 'from setuptools import build_meta as b; b.build_sdist("/app/dist")'
# step[easy-to-miss]: declare the JSON data file as package data and rebuild
cat >> pyproject.toml <<'TOML'

[tool.setuptools.package-data]
unitconv = ["data/*.json"]
TOML
rm -rf /app/dist build src/*.egg-info && mkdir -p /app/dist
python3 -m pip wheel --no-index --no-build-isolation --no-deps -w /app/dist .
python3 -c 'from setuptools import build_meta as b; b.build_sdist("/app/dist")'
ls -l /app/dist

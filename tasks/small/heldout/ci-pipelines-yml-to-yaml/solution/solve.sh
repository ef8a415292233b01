#!/bin/bash
set -e
# step: list the pipeline files
ls -l /app/ci/pipelines
# step[easy-to-miss]: rename with mv, so that no .yml file is left behind
cd /app/ci/pipelines
for f in build test deploy; do mv "$f.yml" "$f.yaml"; done
ls -l /app/ci/pipelines

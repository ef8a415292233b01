#!/bin/bash
set -e
# step: make the scripts executable
chmod 0755 /app/deploy/*.sh
# step[easy-to-miss]: README.md must not be world-writable
chmod 0644 /app/deploy/README.md
ls -l /app/deploy

#!/bin/bash
set -e
# step: look at the current modes
ls -la /app/srv/dropbox
# step[easy-to-miss]: world-writable plus the sticky bit, on the directory only (not recursive)
chmod 1777 /app/srv/dropbox
ls -ld /app/srv/dropbox

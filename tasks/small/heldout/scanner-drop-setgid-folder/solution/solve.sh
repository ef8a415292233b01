#!/bin/bash
set -e
# step: look at the current modes
ls -la /app/srv/scans/accounting
# step[easy-to-miss]: 2770 on the directory only: the leading 2 is the set-group-ID bit
chmod 2770 /app/srv/scans/accounting
ls -ld /app/srv/scans/accounting

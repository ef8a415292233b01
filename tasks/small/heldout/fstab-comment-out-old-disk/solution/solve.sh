#!/bin/bash
set -e
# step: find the lines that mention the old disk
grep -n 'oldbackup' /app/etc/fstab
# step[easy-to-miss]: prefix only the mount line (it starts with UUID=), not the comment above it
sed -i '/^UUID=.* \/mnt\/oldbackup /s/^/#/' /app/etc/fstab
grep -n 'oldbackup' /app/etc/fstab

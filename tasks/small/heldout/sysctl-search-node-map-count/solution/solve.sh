#!/bin/bash
set -e
# step: see what the drop-in already sets (the comment lines do not count)
grep -v '^#' /app/etc/sysctl.d/60-search.conf
# step[easy-to-miss]: look for the setting as a whole line, not inside the comment, and append it once
grep -qx 'vm.max_map_count = 262144' /app/etc/sysctl.d/60-search.conf || echo 'vm.max_map_count = 262144' >> /app/etc/sysctl.d/60-search.conf
cat /app/etc/sysctl.d/60-search.conf

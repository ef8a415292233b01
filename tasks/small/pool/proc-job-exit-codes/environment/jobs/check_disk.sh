#!/bin/bash
# disk usage from the last df snapshot
used=$(cut -d' ' -f2 state/disk.txt)
echo "disk used: ${used}%"
if [ "$used" -gt 90 ]; then exit 2; fi
exit 0

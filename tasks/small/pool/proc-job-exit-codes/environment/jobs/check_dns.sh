#!/bin/bash
grep -q '^resolver ' state/resolv.txt || exit 5
echo "dns ok"

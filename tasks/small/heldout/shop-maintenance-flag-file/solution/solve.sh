#!/bin/bash
set -e
# step: see how the front controller tests the flag
grep -n maintenance /app/shop/public/index.php
# step[easy-to-miss]: create the flag as an empty file (touch writes 0 bytes; echo would write a newline)
touch /app/shop/public/.maintenance
ls -la /app/shop/public

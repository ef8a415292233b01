#!/bin/bash
set -e
# step: list the German entries
grep -n 'de_' /app/etc/locale.gen
# step[easy-to-miss]: uncomment exactly the de_DE.UTF-8 line, '#' and the space after it
sed -i 's/^# de_DE\.UTF-8 UTF-8$/de_DE.UTF-8 UTF-8/' /app/etc/locale.gen
grep -n 'de_' /app/etc/locale.gen

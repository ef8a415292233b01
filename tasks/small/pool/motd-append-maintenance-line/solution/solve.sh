#!/bin/bash
set -e
# step: look at the current message
cat /app/etc/motd
# step[easy-to-miss]: append (>>) the new line instead of overwriting the file
echo 'Scheduled maintenance: Sunday 02:00-04:00 UTC' >> /app/etc/motd
cat /app/etc/motd

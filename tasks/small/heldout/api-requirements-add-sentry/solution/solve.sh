#!/bin/bash
set -e
# step: look at the end of the file (the last line has no newline: no $ after it)
cat -A /app/api/requirements.txt
# step[easy-to-miss]: end the httpx line first, then append the new requirement on its own line
printf '\nsentry-sdk==2.5.1\n' >> /app/api/requirements.txt
cat -A /app/api/requirements.txt

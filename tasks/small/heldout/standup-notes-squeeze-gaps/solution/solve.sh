#!/bin/bash
set -e
# step: look at the gaps between the sections
cat -A /app/notes/standup.txt
# step[easy-to-miss]: squeeze each run of empty lines to one empty line (not zero) into the new file
cat -s /app/notes/standup.txt > /app/notes/standup-tidy.txt
cat /app/notes/standup-tidy.txt

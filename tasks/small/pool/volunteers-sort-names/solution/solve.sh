#!/bin/bash
set -e
# step: look at the list
cat /app/event/volunteers.txt
# step[easy-to-miss]: sort into a new file, keeping repeated names
sort /app/event/volunteers.txt > /app/event/volunteers_sorted.txt
cat /app/event/volunteers_sorted.txt

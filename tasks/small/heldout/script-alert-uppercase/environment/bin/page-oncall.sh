#!/bin/bash
# Sends an alert to the on-call pager. The pager gateway wants the text in capital letters,
# which /app/bin/shout.sh is supposed to produce.
msg=$(/app/bin/shout.sh "$1")
echo "would page on-call: $msg"

#!/bin/bash
n=$(wc -l < state/mailq.txt)
echo "$n mails queued"
exit $(( n > 3 ? 4 : 0 ))

#!/bin/bash
set -e
# step: check the field layout (name:x:uid:gid:gecos:home:shell)
head -n 3 /app/data/passwd
# step: select users whose shell field is exactly /bin/bash, sorted
awk -F: '$7 == "/bin/bash" {print $1}' /app/data/passwd | sort > /app/bash_users.txt
cat /app/bash_users.txt

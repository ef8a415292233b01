#!/bin/bash
set -e
# step: look at the public directory
ls -la /app/blog/public
# step[easy-to-miss]: write both lines with the * quoted, so the shell does not expand it
printf '%s\n' 'User-agent: *' 'Disallow: /admin/' > /app/blog/public/robots.txt
cat /app/blog/public/robots.txt

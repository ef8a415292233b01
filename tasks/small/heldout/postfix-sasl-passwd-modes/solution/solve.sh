#!/bin/bash
set -e
# step: look at the current modes
ls -l /app/etc/postfix
# step[easy-to-miss]: exactly 0600 on both credential files, the hashed .db included
chmod 0600 /app/etc/postfix/sasl_passwd /app/etc/postfix/sasl_passwd.db
ls -l /app/etc/postfix

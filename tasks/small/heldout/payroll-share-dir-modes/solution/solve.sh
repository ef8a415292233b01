#!/bin/bash
set -e
# step: look at the current modes
ls -la /app/finance/payroll
# step: the directory itself to 0750
chmod 0750 /app/finance/payroll
# step[easy-to-miss]: the files to 0640, no execute bit (not chmod -R 750)
chmod 0640 /app/finance/payroll/*
ls -la /app/finance/payroll

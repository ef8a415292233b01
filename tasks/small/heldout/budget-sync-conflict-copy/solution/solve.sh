#!/bin/bash
set -e
# step: list the directory
ls -l /app/share/budget
# step[easy-to-miss]: quote the whole name so that only this one file goes
rm -- "/app/share/budget/forecast 2024 (conflicted copy).xlsx"
ls -l /app/share/budget

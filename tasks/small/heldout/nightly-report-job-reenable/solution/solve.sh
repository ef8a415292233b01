#!/bin/bash
set -e
# step: list the jobs
ls -l /app/jobs
# step[easy-to-miss]: rename (mv) this one script only; cleanup-tmp stays disabled
mv /app/jobs/nightly-report.sh.disabled /app/jobs/nightly-report.sh
ls -l /app/jobs

#!/bin/bash
set -e
# step: look at the template
cat /app/worker/.env.example
# step[easy-to-miss]: write a new .env with both settings, leaving .env.example in place
printf 'QUEUE_URL=redis://queue.internal:6379/0\nWORKER_THREADS=4\n' > /app/worker/.env
cat /app/worker/.env

#!/bin/bash
set -e
# step: look at the thesis tree
ls -R /app/thesis
# step[easy-to-miss]: pack thesis/ relative to /app, excluding thesis/build (option before the directory)
tar -czf /app/outbox/thesis-sources.tar.gz -C /app --exclude=thesis/build thesis
tar -tzf /app/outbox/thesis-sources.tar.gz

#!/bin/bash
set -e
# step: see what is in the output directory
ls -lR /app/render/out
# step[easy-to-miss]: only the top level (not recursive: hold/ keeps its .part file)
rm -f /app/render/out/*.part
ls -lR /app/render/out

#!/bin/bash
set -e
# step: compare the timestamps
ls -l --time-style=full-iso /app/calc/src
# step[easy-to-miss]: the reference file comes first: parser.c gets grammar.y's time
touch -r /app/calc/src/grammar.y /app/calc/src/parser.c
ls -l --time-style=full-iso /app/calc/src

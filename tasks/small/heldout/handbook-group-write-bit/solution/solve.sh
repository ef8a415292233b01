#!/bin/bash
set -e
# step: add group write to every file
chmod g+w /app/team/handbook/*
# step[easy-to-miss]: and to the directory itself
chmod g+w /app/team/handbook
ls -la /app/team/handbook

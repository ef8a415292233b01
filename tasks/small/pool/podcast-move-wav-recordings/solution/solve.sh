#!/bin/bash
set -e
# step: create the target directory
mkdir -p /app/media/audio
# step[easy-to-miss]: move (not copy) the .wav files
mv /app/uploads/*.wav /app/media/audio/
ls -l /app/uploads /app/media/audio

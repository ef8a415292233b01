#!/bin/bash
set -e
# step: rename .JPG/.Jpg variants to .jpg
cd /app/photos
for f in *; do
  case "$f" in *.[jJ][pP][gG]) [ "$f" = "${f%.*}.jpg" ] || mv -- "$f" "${f%.*}.jpg" ;; esac
done
# step[easy-to-miss]: .jpeg/.JPEG are JPEGs too
cd /app/photos
for f in *; do
  case "$f" in *.[jJ][pP][eE][gG]) mv -- "$f" "${f%.*}.jpg" ;; esac
done
ls /app/photos

#!/bin/bash
set -e
# step: load the settings
source /app/ci/image.env
# step[easy-to-miss]: write the expanded value
echo "$IMAGE_REF" > /app/ci/image_ref.txt
cat /app/ci/image_ref.txt

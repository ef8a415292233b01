#!/bin/bash
set -e
cd /app/incoming
# step: look at the archive's entries
tar -tvf photos.tar
# step[easy-to-miss]: list the member names without the directory entries, sorted
tar -tf photos.tar | grep -v '/$' | LC_ALL=C sort > photos.txt
cat photos.txt

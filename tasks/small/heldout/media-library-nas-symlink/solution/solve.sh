#!/bin/bash
set -e
# step: look at the placeholder and the NAS
ls -la /app/srv/mediaserver /app/srv/mediaserver/library /app/mnt/nas/media
# step[easy-to-miss]: remove the empty placeholder directory (else ln puts the link inside it)
rmdir /app/srv/mediaserver/library
# step: create the link with the absolute target
ln -s /app/mnt/nas/media /app/srv/mediaserver/library
ls -l /app/srv/mediaserver

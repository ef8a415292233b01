#!/bin/bash
set -e
./build.sh
rsync -a dist/ /srv/releases/

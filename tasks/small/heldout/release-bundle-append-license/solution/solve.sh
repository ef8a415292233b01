#!/bin/bash
set -e
# step: see what the archive holds and how its members are named
tar -tvf /app/dist/bundle.tar
# step[easy-to-miss]: append LICENSE as pkg/LICENSE, keeping the existing members
tar -rf /app/dist/bundle.tar -C /app pkg/LICENSE
tar -tf /app/dist/bundle.tar

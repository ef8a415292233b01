#!/bin/bash
set -e
# step: look at the current modes of the tree
ls -lR /app/legal/contracts
# step[easy-to-miss]: remove only the others bits, recursively (symbolic mode keeps owner and group bits)
chmod -R o-rwx /app/legal/contracts
ls -lR /app/legal/contracts

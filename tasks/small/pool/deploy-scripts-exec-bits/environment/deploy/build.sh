#!/bin/bash
set -e
make -C /srv/app dist

#!/bin/bash
set -e
ln -sfn "$1" /srv/current

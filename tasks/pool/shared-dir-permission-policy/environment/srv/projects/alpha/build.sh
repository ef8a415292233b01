#!/bin/bash
set -e
make -C "$(dirname "$0")" all

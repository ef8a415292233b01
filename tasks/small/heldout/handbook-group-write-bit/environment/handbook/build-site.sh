#!/bin/bash
# Rebuilds the HTML version of the handbook.
echo "building handbook"

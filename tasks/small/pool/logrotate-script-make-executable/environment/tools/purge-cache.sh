#!/bin/bash
# NOT READY: still deletes too much, do not enable yet.
rm -rf /app/cache/*

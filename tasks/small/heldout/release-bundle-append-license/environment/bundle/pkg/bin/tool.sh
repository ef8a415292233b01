#!/bin/bash
echo "tool 1.8.0"

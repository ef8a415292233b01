#!/bin/bash
set -e
# step: greet the name from the command line
sed -i 's/len(sys.argv) > 2/len(sys.argv) > 1/' /app/greet.py
# step[easy-to-miss]: end the greeting with an exclamation mark
sed -i 's/print(f"Hello, {name}")/print(f"Hello, {name}!")/' /app/greet.py

#!/bin/sh
# blank out bank details before a contract leaves legal
sed -E 's/IBAN [A-Z0-9 ]+/IBAN [redacted]/g' "$1"

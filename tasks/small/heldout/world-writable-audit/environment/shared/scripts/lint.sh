content of scripts/lint.sh

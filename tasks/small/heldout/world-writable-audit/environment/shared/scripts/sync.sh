content of scripts/sync.sh

#!/bin/bash
set -e
# step: write backup.sh (GNU tar --listed-incremental, sequential archive names, exclusions)
cat > /app/backup.sh <<'SH'
#!/bin/bash
set -euo pipefail
src="${1:?usage: backup.sh SRC DEST}"
dest="${2:?usage: backup.sh SRC DEST}"
mkdir -p "$dest"
n=0
while [ -e "$dest/$(printf 'backup-%03d.tar.gz' "$n")" ]; do n=$((n+1)); done
archive="$dest/$(printf 'backup-%03d.tar.gz' "$n")"
tar --create --gzip --file "$archive" \
    --listed-incremental="$dest/snapshot.snar" \
    --exclude='*.tmp' --exclude='cache' \
    -C "$src" .
echo "$archive"
SH
chmod +x /app/backup.sh
# step[easy-to-miss]: write restore.sh; extracting with --listed-incremental=/dev/null makes tar delete files that vanished between backups
cat > /app/restore.sh <<'SH'
#!/bin/bash
set -euo pipefail
dest="${1:?usage: restore.sh DEST TARGET}"
target="${2:?usage: restore.sh DEST TARGET}"
mkdir -p "$target"
for a in $(ls "$dest"/backup-[0-9][0-9][0-9].tar.gz | sort); do
  tar --extract --gzip --file "$a" --listed-incremental=/dev/null -C "$target"
done
SH
chmod +x /app/restore.sh
# step: take the first full backup of /app/data
/app/backup.sh /app/data /app/backups

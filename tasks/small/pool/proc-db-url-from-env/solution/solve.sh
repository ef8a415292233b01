#!/bin/bash
set -e
# step[easy-to-miss]: write the script, defaulting unset or empty port and name
cat > /app/dburl.sh <<'SH'
#!/bin/bash
echo "postgres://${DB_USER}@${DB_HOST}:${DB_PORT:-5432}/${DB_NAME:-app}"
SH
# step: make it executable
chmod +x /app/dburl.sh
/app/dburl.sh

#!/bin/bash
set -e
# step: write the script
cat > /app/bin/shout.sh <<'SH'
#!/bin/bash
echo "$1" | tr 'a-z' 'A-Z'
SH
# step[easy-to-miss]: make it executable
chmod +x /app/bin/shout.sh
/app/bin/shout.sh "disk full on db-2"

#!/bin/bash
set -e
# step: write the script
cat > /app/bin/freeze-notice.sh <<'SH'
#!/bin/bash
echo "Deploys are frozen until Monday 09:00."
SH
# step[easy-to-miss]: make it executable
chmod +x /app/bin/freeze-notice.sh
/app/bin/freeze-notice.sh

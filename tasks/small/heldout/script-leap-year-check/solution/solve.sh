#!/bin/bash
set -e
# step[easy-to-miss]: write the check with the 100/400 exception
cat > /app/leap.sh <<'SH'
#!/bin/bash
y=$1
if (( (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 )); then
  echo leap
else
  echo common
fi
SH
# step: make it executable
chmod +x /app/leap.sh
/app/leap.sh 1900

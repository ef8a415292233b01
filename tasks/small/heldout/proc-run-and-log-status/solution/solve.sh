#!/bin/bash
set -e
# step: write the wrapper that runs the command and logs its status
cat > /app/runlog.sh <<'SH'
#!/bin/bash
"$@"
rc=$?
echo "$rc $*" >> /app/run_history.log
SH
# step[easy-to-miss]: exit with the command's status, and make it executable
echo 'exit $rc' >> /app/runlog.sh
chmod +x /app/runlog.sh

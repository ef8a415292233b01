#!/bin/bash
set -e
# step: write the start script
cat > /app/start_ticker.sh <<'SH'
#!/bin/bash
nohup python3 /app/ticker.py >> /app/ticker.log 2>&1 < /dev/null &
SH
# step[easy-to-miss]: record the ticker's own PID
echo 'echo $! > /app/ticker.pid' >> /app/start_ticker.sh
chmod +x /app/start_ticker.sh

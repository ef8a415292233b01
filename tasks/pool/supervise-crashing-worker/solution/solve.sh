#!/bin/bash
set -e
# step: write the supervisor loop (pid file, restart log, give up after 3 restarts)
cat > /app/supervise <<'SH'
#!/bin/bash
RUN=/app/run
PIDFILE=$RUN/worker.pid
LOG=$RUN/supervisor.log
MAX_RESTARTS=3
mkdir -p "$RUN"
child=""
restarts=0
# signal handling
while true; do
  "$@" &
  child=$!
  echo "$child" > "$PIDFILE"
  wait "$child"
  rc=$?
  child=""
  if [ "$rc" -eq 0 ]; then
    rm -f "$PIDFILE"
    exit 0
  fi
  if [ "$restarts" -ge "$MAX_RESTARTS" ]; then
    echo "giving up after $MAX_RESTARTS restarts" >> "$LOG"
    rm -f "$PIDFILE"
    exit 1
  fi
  restarts=$((restarts + 1))
  echo "restart $restarts exit=$rc" >> "$LOG"
  sleep 1 & wait $!
done
SH
chmod +x /app/supervise
# step[easy-to-miss]: on SIGTERM forward it to the worker, wait, clean up the pid file and exit 0
python3 - <<'PY'
p = "/app/supervise"
s = open(p).read()
handler = '''on_term() {
  trap - TERM
  if [ -n "$child" ]; then
    kill -TERM "$child" 2>/dev/null
    wait "$child" 2>/dev/null
  fi
  rm -f "$PIDFILE"
  echo "stopped" >> "$LOG"
  exit 0
}
trap on_term TERM'''
s = s.replace("# signal handling", handler, 1)
open(p, "w").write(s)
PY
grep -q 'trap on_term TERM' /app/supervise

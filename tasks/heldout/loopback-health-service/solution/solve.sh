#!/bin/bash
set -e
cd /app/service
# step: fix the port type bug (configparser returns strings)
sed -i 's/^PORT = cfg.get("server", "port")$/PORT = cfg.getint("server", "port")/' app.py
grep -q 'PORT = cfg.getint' app.py
# step: create the database by applying the migrations in order
mkdir -p data
for f in $(ls migrations/*.sql | sort); do sqlite3 data/tiles.db < "$f"; done
# step[easy-to-miss]: listen on loopback only
sed -i 's/^bind = 0.0.0.0$/bind = 127.0.0.1/' config.ini
grep -q '^bind = 127.0.0.1$' config.ini
# step: write start.sh (background, pid file, wait for health)
cat > start.sh <<'SH'
#!/bin/bash
cd "$(dirname "$0")"
setsid nohup python3 app.py >> service.log 2>&1 < /dev/null &
echo $! > service.pid
for i in $(seq 1 150); do
  if curl -fsS -o /dev/null http://127.0.0.1:8085/healthz; then
    exit 0
  fi
  sleep 0.1
done
echo "service did not become healthy" >&2
exit 1
SH
chmod +x start.sh

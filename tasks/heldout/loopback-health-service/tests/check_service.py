import json, os, signal, subprocess, sys, time, urllib.request, urllib.error

fails = []
SVC = "/app/service"
PIDF = f"{SVC}/service.pid"

def listeners(port):
    """(local_ip_hex, inode) for LISTEN sockets on port, from /proc/net/tcp and tcp6."""
    out = []
    for fn in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = open(fn).read().splitlines()[1:]
        except FileNotFoundError:
            continue
        for l in lines:
            parts = l.split()
            ip, p = parts[1].split(":")
            if int(p, 16) == port and parts[3] == "0A":
                out.append((fn, ip, parts[9]))
    return out

def socket_inodes(pid):
    inodes = set()
    try:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                t = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            if t.startswith("socket:["):
                inodes.add(t[8:-1])
    except OSError:
        pass
    return inodes

def main():
    if not os.path.isfile(f"{SVC}/start.sh"):
        fails.append("start.sh missing")
        return
    # stop anything from the agent's session still holding the port, so start.sh runs from a clean state
    held = {i for _, _, i in listeners(8085)}
    if held:
        for pid in os.listdir("/proc"):
            if pid.isdigit() and socket_inodes(pid) & held:
                try:
                    os.kill(int(pid), signal.SIGKILL)
                except OSError:
                    pass
        for _ in range(50):
            if not listeners(8085):
                break
            time.sleep(0.1)
    for p in (PIDF,):
        if os.path.exists(p):
            os.remove(p)
    t0 = time.time()
    with open("/tmp/start.out", "w") as out:
        try:
            r = subprocess.run(["bash", f"{SVC}/start.sh"], stdout=out, stderr=subprocess.STDOUT, timeout=40, cwd="/")
        except subprocess.TimeoutExpired:
            fails.append("start.sh did not return")
            return
    if r.returncode != 0:
        fails.append(f"start.sh exit {r.returncode}: {open('/tmp/start.out').read()[-400:]}")
        return
    # health must already be up when start.sh returns
    try:
        with urllib.request.urlopen("http://127.0.0.1:8085/healthz", timeout=5) as resp:
            code, body = resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as e:
        code, body = e.code, e.read()[:300]
    except Exception as e:
        fails.append(f"health request failed right after start.sh: {e!r}")
        return
    if code != 200 or not isinstance(body, dict) or body.get("status") != "ok" or body.get("migrations") != 2 or body.get("version") != "1.4.2":
        fails.append(f"health: {code} {body}")
    # bind address
    ls = listeners(8085)
    if not ls:
        fails.append("no listening socket on 8085")
    for fn, ip, inode in ls:
        if not (fn.endswith("tcp") and ip == "0100007F"):
            fails.append(f"port 8085 listens on {ip} ({fn}); must be 127.0.0.1 only")
    # pid file
    try:
        pid = int(open(PIDF).read().strip())
        if not os.path.exists(f"/proc/{pid}"):
            fails.append("pid in service.pid is not running")
        elif not ({i for _, _, i in ls} & socket_inodes(pid)):
            fails.append("process in service.pid does not own the listening socket")
    except Exception as e:
        fails.append(f"service.pid: {e!r}")
    if not os.path.exists(f"{SVC}/service.log"):
        fails.append("service.log not written")
    # the db file
    try:
        import sqlite3
        con = sqlite3.connect(f"file:{SVC}/data/tiles.db?mode=ro", uri=True)
        v = [r[0] for r in con.execute("SELECT version FROM schema_migrations ORDER BY version")]
        cols = [r[1] for r in con.execute("PRAGMA table_info(tiles)")]
        if v != ["001_init", "002_layers"] or "layer_id" not in cols:
            fails.append(f"database not migrated properly: {v} {cols}")
    except Exception as e:
        fails.append(f"database: {e!r}")

try:
    main()
except Exception as e:
    fails.append(f"crash: {e!r}")
for f in fails:
    print("FAIL:", f)
sys.exit(1 if fails else 0)

import os, sys
def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)

import tarfile
WANT = {'etc/nginx.conf': 'worker_processes 2;\n', 'etc/app.conf': 'port = 8080\nlog = /var/log/app.log\n', 'etc/conf.d/db.conf': 'host = 127.0.0.1\nuser = app\n'}
P = "/app/backup/etc-conf.tar.gz"
if not os.path.isfile(P):
    fail(f"{P} missing")
try:
    with tarfile.open(P, "r:gz") as tf:
        files = {}
        for m in tf.getmembers():
            name = m.name[2:] if m.name.startswith("./") else m.name
            if m.isfile():
                files[name] = tf.extractfile(m).read().decode()
            elif not m.isdir():
                fail(f"unexpected member {m.name}")
except (tarfile.TarError, OSError, EOFError) as e:
    fail(f"{P} is not a gzip-compressed tar archive: {e}")
if set(files) != set(WANT):
    fail(f"archive holds {sorted(files)}, expected {sorted(WANT)}")
for k, v in WANT.items():
    if files[k] != v:
        fail(f"{k} differs from the original")
print("ok")

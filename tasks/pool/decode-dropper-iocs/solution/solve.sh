#!/bin/bash
set -e
mkdir -p /app/analysis
cd /app/analysis
# step: pull the key and the blob out of the dropper without executing it
sed -n 's/^_k="\(.*\)"$/\1/p' /app/incident/system-update-helper | base64 -d > xor_key.txt
sed -n '/^_d="/,/^"/p' /app/incident/system-update-helper | sed '1d;$d' | tr -d '\n ' > blob.b64
# step: base64 -> xor -> gunzip into stage2.sh (kept non-executable)
python3 - <<'PY'
import base64, gzip
key = open("xor_key.txt", "rb").read()
data = base64.b64decode(open("blob.b64").read())
gz = bytes(c ^ key[i % len(key)] for i, c in enumerate(data))
open("stage2.sh", "wb").write(gzip.decompress(gz))
PY
chmod 0644 stage2.sh
cat stage2.sh
# step[easy-to-miss]: extract the IOCs, including the exfil endpoint hidden as reversed hex inside stage 2
python3 - <<'PY'
import hashlib, json, re
s = open("stage2.sh", "rb").read()
text = s.decode()
w = re.search(r'^W=(\S+)$', text, re.M).group(1)
c2 = re.search(r'^C2="([^"]+)"$', text, re.M).group(1)
cron = re.search(r'echo "(\*/15 [^"]+)"', text).group(1).replace("$W", w)
hexstr = re.search(r'_t=\$\(echo "([0-9a-f]+)" \| xxd -r -p \| rev\)', text).group(1)
exfil = bytes.fromhex(hexstr).decode()[::-1]
iocs = {"xor_key": open("xor_key.txt").read(), "stage2_sha256": hashlib.sha256(s).hexdigest(),
        "c2_url": c2, "dropped_file": w + "/updater", "persistence": cron, "exfil": exfil}
json.dump(iocs, open("iocs.json", "w"), indent=2)
print(json.dumps(iocs, indent=2))
PY

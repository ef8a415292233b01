import datetime as dt, os, re, stat, subprocess, sys

fails = []
KEY, CRT = "/app/tls/metrics.key", "/app/tls/metrics.crt"

def ossl(*args, inp=None):
    r = subprocess.run(["openssl", *args], capture_output=True, text=True, input=inp, timeout=60)
    return r.returncode, r.stdout + r.stderr

def main():
    if not (os.path.isfile(KEY) and os.path.isfile(CRT)):
        fails.append("key or certificate missing"); return
    if stat.S_IMODE(os.stat(KEY).st_mode) != 0o600:
        fails.append(f"key mode {oct(stat.S_IMODE(os.stat(KEY).st_mode))}, expected 0600")
    keytext = open(KEY).read()
    if "ENCRYPTED" in keytext:
        fails.append("key is encrypted")
    rc, out = ossl("pkey", "-in", KEY, "-noout", "-text", "-passin", "pass:")
    rc2, _ = ossl("rsa", "-in", KEY, "-noout", "-check", "-passin", "pass:")
    if rc != 0 or rc2 != 0 or "3072 bit" not in out:
        fails.append("key is not an unencrypted RSA 3072-bit key")
    rc, kpub = ossl("pkey", "-in", KEY, "-pubout", "-passin", "pass:")
    rc2, cpub = ossl("x509", "-in", CRT, "-noout", "-pubkey")
    if rc or rc2 or kpub.strip() != cpub.strip():
        fails.append("certificate does not match the key")
    rc, text = ossl("x509", "-in", CRT, "-noout", "-text")
    if rc != 0:
        fails.append("certificate not readable as PEM X.509"); return
    if "-----BEGIN CERTIFICATE-----" not in open(CRT).read():
        fails.append("certificate not PEM")
    rc, subj = ossl("x509", "-in", CRT, "-noout", "-subject", "-nameopt", "RFC2253")
    parts = set(subj.strip().removeprefix("subject=").split(","))
    if parts != {"CN=metrics.internal.lan", "O=Acme Ops", "C=DE"}:
        fails.append(f"subject: {subj.strip()}")
    rc, iss = ossl("x509", "-in", CRT, "-noout", "-issuer", "-nameopt", "RFC2253")
    if iss.strip().removeprefix("issuer=") != subj.strip().removeprefix("subject="):
        fails.append("not self-signed (issuer != subject)")
    if "sha256WithRSAEncryption" not in text:
        fails.append("signature algorithm is not sha256WithRSAEncryption")
    rc, dates = ossl("x509", "-in", CRT, "-noout", "-startdate", "-enddate")
    try:
        nb = dt.datetime.strptime(re.search(r"notBefore=(.*)", dates).group(1).strip(), "%b %d %H:%M:%S %Y %Z")
        na = dt.datetime.strptime(re.search(r"notAfter=(.*)", dates).group(1).strip(), "%b %d %H:%M:%S %Y %Z")
        if na - nb != dt.timedelta(days=397):
            fails.append(f"validity is {na - nb}, expected 397 days")
    except Exception as e:
        fails.append(f"dates: {e!r}")
    m = re.search(r"X509v3 Subject Alternative Name:.*?\n\s*(.*)\n", text)
    sans = set(s.strip() for s in m.group(1).split(",")) if m else set()
    want = {"DNS:metrics.internal.lan", "DNS:metrics", "IP Address:127.0.0.1", "IP Address:10.20.0.15"}
    if sans != want:
        fails.append(f"subjectAltName: {sorted(sans)}, expected {sorted(want)}")
    if not re.search(r"X509v3 Basic Constraints:.*\n\s*CA:FALSE", text):
        fails.append("basicConstraints CA:FALSE missing")
    if not re.search(r"X509v3 Extended Key Usage:.*\n\s*TLS Web Server Authentication", text):
        fails.append("extendedKeyUsage serverAuth missing")
    # exporter config
    web = open("/app/exporter/web.yml").read()
    if not re.search(r"^  cert_file: /app/tls/metrics\.crt\s*$", web, re.M) or not re.search(r"^  key_file: /app/tls/metrics\.key\s*$", web, re.M):
        fails.append("web.yml does not point at the new cert/key")
    if "min_version: TLS12" not in web or "tls_server_config:" not in web:
        fails.append("web.yml lost its other settings")
    # trust store
    import hashlib
    ca = "/app/trust/37da95c0.0"
    if not os.path.isfile(ca) or hashlib.sha256(open(ca, "rb").read()).hexdigest() != "82b824320b516af206028b470ec416cb7e8e50000c1e31fcea52ddf8b4450f30":
        fails.append("existing trust entry removed")
    for args in (["-verify_ip", "127.0.0.1"], ["-verify_ip", "10.20.0.15"], ["-verify_hostname", "metrics.internal.lan"], ["-verify_hostname", "metrics"]):
        rc, out = ossl("verify", "-CApath", "/app/trust", "-purpose", "sslserver", *args, CRT)
        if rc != 0:
            fails.append(f"openssl verify -CApath /app/trust {' '.join(args)} failed: {out.strip()[-200:]}")

try:
    main()
except Exception as e:
    fails.append(f"crash: {e!r}")
for f in fails:
    print("FAIL:", f)
sys.exit(1 if fails else 0)

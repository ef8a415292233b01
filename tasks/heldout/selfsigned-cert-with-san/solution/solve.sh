#!/bin/bash
set -e
mkdir -p /app/tls
cd /app/tls
# step[easy-to-miss]: key + self-signed cert; SANs must cover both names and both IPs (127.0.0.1 and 10.20.0.15)
openssl req -x509 -newkey rsa:3072 -nodes -sha256 -days 397 \
  -keyout metrics.key -out metrics.crt \
  -subj "/C=DE/O=Acme Ops/CN=metrics.internal.lan" \
  -addext "subjectAltName=DNS:metrics.internal.lan,DNS:metrics,IP:127.0.0.1,IP:10.20.0.15" \
  -addext "basicConstraints=critical,CA:FALSE" \
  -addext "keyUsage=critical,digitalSignature,keyEncipherment" \
  -addext "extendedKeyUsage=serverAuth"
chmod 0600 metrics.key
# step: point the exporter config at the new files
sed -i 's|^  cert_file: .*|  cert_file: /app/tls/metrics.crt|; s|^  key_file: .*|  key_file: /app/tls/metrics.key|' /app/exporter/web.yml
cat /app/exporter/web.yml
# step: add the certificate to the hashed trust directory
h=$(openssl x509 -in /app/tls/metrics.crt -noout -subject_hash)
n=0; while [ -e "/app/trust/$h.$n" ]; do n=$((n+1)); done
ln -s /app/tls/metrics.crt "/app/trust/$h.$n"
ls -l /app/trust

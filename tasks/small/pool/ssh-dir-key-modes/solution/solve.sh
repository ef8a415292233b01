#!/bin/bash
set -e
# step: private keys, config and authorized_keys readable by the owner only
cd /app/home/dev/.ssh
chmod 0600 id_ed25519 id_rsa_legacy config authorized_keys
# step: public keys and known_hosts world-readable
cd /app/home/dev/.ssh
chmod 0644 ./*.pub known_hosts
# step[easy-to-miss]: the directory itself
chmod 0700 /app/home/dev/.ssh
ls -la /app/home/dev/.ssh

#!/usr/bin/env bash
# Make podman work for Dockerfile-built tasks on hosts like these (Debian 12, cgroups v1 hybrid, low
# hard rlimits, no image registry). Run as root; idempotent. What it does:
#   1. installs podman, runc and debootstrap from Debian's archive (when missing);
#   2. writes /etc/containers/containers.conf when the host has none: runc as the OCI runtime (crun
#      fails on hybrid cgroups) and container ulimits no higher than this host's hard limits
#      (podman's defaults exceed them: "setrlimit RLIMIT_NOFILE: Operation not permitted");
#   3. checks that `podman run` works on an image built from Debian's archive (no registry needed):
#      `modularrsi images bootstrap debian:bookworm-slim` builds it.
# Harbor's podman environment also needs a compose frontend: podman-compose, a Python dependency of
# this project (installed into its venv by `make`).
set -euo pipefail
if [ "$(id -u)" != 0 ]; then
  echo "error: run as root (it installs Debian packages and writes /etc/containers/containers.conf)" >&2
  exit 1
fi
missing=()
for p in podman runc debootstrap; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
conf=/etc/containers/containers.conf
if [ ! -e "$conf" ]; then
  nofile=$(ulimit -Hn); nproc=$(ulimit -Hu)
  [ "$nofile" = unlimited ] && nofile=1048576
  [ "$nproc" = unlimited ] && nproc=32768
  [ "$nproc" -gt 32768 ] && nproc=32768  # measured: runc here cannot set 65536 even under a higher hard limit
  mkdir -p /etc/containers
  cat > "$conf" <<CONF
# Written by ModularRSI's scripts/engine-setup.sh (delete it to return to podman's defaults).
[containers]
default_ulimits = ["nofile=${nofile}:${nofile}", "nproc=${nproc}:${nproc}"]
[engine]
runtime = "runc"
CONF
  echo "wrote $conf (runc; ulimits nofile=$nofile nproc=$nproc)"
fi
podman info --format '{{.Host.OCIRuntime.Name}}' >/dev/null
echo "podman answers (runtime: $(podman info --format '{{.Host.OCIRuntime.Name}}'))"

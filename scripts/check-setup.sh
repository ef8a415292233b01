#!/usr/bin/env bash
# Check that this machine has everything the tests and the container paths use, after `make` installed
# it: the binaries, podman starting a container with an init process (Harbor's egress sidecar asks for
# one), docker's compose plugin and init binary. Prints one line: "set-up check: ok (...)" or
# "set-up check: missing: <what> (<why>); ..." and then exits 1.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
problems=()
need() {  # need BINARY PACKAGE: the binary is on PATH
  command -v "$1" >/dev/null 2>&1 || problems+=("$1 (install Debian's $2)")
}
need bwrap bubblewrap; need tmux tmux; need slirp4netns slirp4netns; need mkfs.ext4 e2fsprogs
need podman podman; need runc runc; need debootstrap debootstrap; need docker docker.io
need dockerd docker.io; need docker-init docker.io; need catatonit catatonit; need chromium chromium
need git git; need gcc gcc; need cmake cmake; need sqlite3 sqlite3; need jq jq
[ -x "$here/.venv/bin/podman-compose" ] || problems+=("podman-compose (run make: it is a Python dependency)")
if command -v docker >/dev/null 2>&1 && ! docker compose version >/dev/null 2>&1; then
  problems+=("docker compose v2 plugin (run scripts/engine-setup.sh as root)")
fi
if command -v podman >/dev/null 2>&1; then
  if ! out=$(podman run --rm --init --network none --rootfs /:O /bin/true 2>&1); then
    problems+=("a podman container with --init ($(printf '%s' "$out" | tail -n 1 | cut -c1-160))")
  fi
fi
if [ ${#problems[@]} -gt 0 ]; then
  printf 'set-up check: missing: %s\n' "$(IFS=';'; echo "${problems[*]}" | sed 's/;/; /g')"
  exit 1
fi
echo "set-up check: ok (sandbox, podman with --init, docker with compose, browser)"

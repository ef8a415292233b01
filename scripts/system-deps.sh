#!/usr/bin/env bash
# Install the Debian packages in scripts/system-packages.txt that are missing (root), or say which.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
mapfile -t wanted < <(grep -v '^\s*#' "$here/system-packages.txt" | grep -v '^\s*$')
if [ "${WITH_BROWSER:-0}" = 1 ]; then wanted+=(chromium); fi
missing=()
for p in "${wanted[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
configure_engine() {  # podman's containers.conf and docker's compose plugin (see engine-setup.sh)
  if [ "$(id -u)" = 0 ] && command -v podman >/dev/null \
     && { [ ! -e /etc/containers/containers.conf ] || ! docker compose version >/dev/null 2>&1; }; then
    "$here/engine-setup.sh"
  fi
}
if [ ${#missing[@]} -eq 0 ]; then configure_engine; exit 0; fi
if ! command -v apt-get >/dev/null; then
  echo "error: missing system packages: ${missing[*]} (no apt-get here: install them with your package manager)" >&2
  exit 1
fi
if [ "$(id -u)" != 0 ]; then
  echo "error: missing system packages: ${missing[*]}; run: sudo apt-get install ${missing[*]}" >&2
  exit 1
fi
echo "installing system packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
configure_engine

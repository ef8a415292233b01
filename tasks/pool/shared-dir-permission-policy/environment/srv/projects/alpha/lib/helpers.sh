# sourced by build.sh, not run directly
log() { echo "[alpha] $*"; }

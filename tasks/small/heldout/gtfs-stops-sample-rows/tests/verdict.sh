# verdict.sh: sourced first by every tests/test.sh of a shipped task (`. /tests/verdict.sh`), the same
# bytes in each (the canonical copy is tasks/verdict.sh; tests/tasks/test_verdict.py keeps them equal).
# It makes the reward the verifier's own, never something the agent's files can write:
#  - environment: PATH holds system directories only, HOME is a fresh empty directory (no ~/.local
#    user site, no ~/.gitconfig), no PYTHON*, BASH_ENV or ENV variable is inherited, and no Python
#    the checks start reads a user site (PYTHONNOUSERSITE);
#  - reward: 0 from the first line; `verdict_pass` records success, and an EXIT trap writes the
#    verdict last, replacing any reward.txt / reward.json that code run by the checks wrote meanwhile
#    (clean-up a test needs at exit goes in a function named `verdict_cleanup`, never in a trap);
#  - `verdict_python [--timeout SEC] [--path DIR]... SCRIPT|-m MODULE [ARG]...` runs a check on the
#    system Python in isolated mode (-I: PYTHON* variables, the user site, the script's directory and
#    the cwd are ignored at start-up; bytecode only under a private prefix, so no __pycache__ of the
#    agent's is read). The script's directory and each DIR (the code under test) join the front of
#    sys.path only after start-up, so no sitecustomize.py, usercustomize.py or .pth file there runs.
#    It succeeds only when the check ran to its end: the runner reads a per-run nonce from stdin
#    before anything else and records it once the check returned, or exited 0 from the verifier's own
#    code, so an os._exit(0) or sys.exit(0) in imported agent code is a failure.
# Limit: agent code that a check executes runs as root in the same sandbox; it could still kill this
# script or tamper with the process that imported it. Run agent code in a subprocess where possible.

export PATH=/usr/sbin:/usr/bin:/sbin:/bin
unset BASH_ENV ENV CDPATH $(compgen -e | grep '^PYTHON')
export PYTHONNOUSERSITE=1
_VERDICT=0
_VERDICT_DIR=$(mktemp -d /tmp/verdict.XXXXXX)
export HOME="$_VERDICT_DIR/home"
mkdir -p "$HOME" /logs/verifier

_verdict_write() {
  rm -rf /logs/verifier/reward.json /logs/verifier/reward.txt
  echo "$_VERDICT" > /logs/verifier/reward.txt
}

_verdict_exit() {
  if declare -F verdict_cleanup > /dev/null; then verdict_cleanup; fi
  _verdict_write
  rm -rf "$_VERDICT_DIR"
}

verdict_pass() { _VERDICT=1; }

_verdict_write
trap _verdict_exit EXIT

read -r -d '' _VERDICT_RUNNER <<'PY' || true  # read ends at end of input: status 1
import os, runpy, site, sys, sysconfig

marker, args = sys.argv[1], sys.argv[2:]
nonce = sys.stdin.readline().strip()
null = os.open(os.devnull, os.O_RDONLY)
os.dup2(null, 0)
os.close(null)
paths = []
while args[0] == "--path":
    paths, args = [*paths, os.path.abspath(args[1])], args[2:]
args = args[1:]
trusted = {"/tests", *(sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib", "platlib"))}
trusted = tuple(os.path.realpath(p) + os.sep for p in trusted | set(site.getsitepackages()))


def code_under_test(tb):
    """The first frame of the traceback outside the verifier's and the system's code, if any."""
    while tb is not None:
        name = tb.tb_frame.f_code.co_filename
        if not name.startswith("<") and not os.path.realpath(name).startswith(trusted):
            return name
        tb = tb.tb_next
    return None


try:
    if args[0] == "-m":
        sys.argv, sys.path[:0] = args[1:], paths
        runpy.run_module(args[1], run_name="__main__", alter_sys=True)
    else:
        sys.argv, sys.path[:0] = args, [os.path.dirname(os.path.abspath(args[0])), *paths]
        runpy.run_path(args[0], run_name="__main__")
except SystemExit as stop:
    if stop.code not in (None, 0):
        raise
    culprit = code_under_test(stop.__traceback__)
    if culprit:
        sys.exit(f"verdict: {culprit} (code under test) ended the check with exit status 0")
with open(marker, "w") as out:
    out.write(nonce)
PY

verdict_python() {
  local limit=() paths=() marker nonce code
  while [ $# -gt 0 ]; do
    case "$1" in
      --timeout) limit=(timeout "$2"); shift 2 ;;
      --path) paths+=(--path "$2"); shift 2 ;;
      *) break ;;
    esac
  done
  marker=$(mktemp "$_VERDICT_DIR/ran.XXXXXX")
  nonce=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
  "${limit[@]}" /usr/bin/python3 -I -B -X "pycache_prefix=$_VERDICT_DIR/pycache" -c "$_VERDICT_RUNNER" \
    "$marker" "${paths[@]}" -- "$@" <<< "$nonce"
  code=$?
  [ "$code" -eq 0 ] || return "$code"
  if [ "$(cat "$marker")" != "$nonce" ]; then
    echo "verdict: the check exited 0 before it ran to its end (code under test called os._exit?)"
    return 1
  fi
}

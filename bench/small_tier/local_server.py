"""``bench/small_tier/serve.py`` started for the duration of a measurement, on 127.0.0.1:8081."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
URL = "http://127.0.0.1:8081"


def answering() -> bool:
    try:
        with urllib.request.urlopen(f"{URL}/v1/models", timeout=5):
            return True
    except OSError:
        return False


@contextmanager
def serving(options: list[str], log: Path):
    """``serve.py OPTIONS`` with the interpreter of ``local-model fetch``'s venv (``LOCAL_MODEL_HOME``), until
    the block ends; refuses to start when something already answers on the port."""
    if answering():
        sys.exit(f"error: a server already answers on {URL}; stop it first")
    home = Path(os.environ.get("LOCAL_MODEL_HOME", Path.home() / ".cache" / "local-model"))
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("w") as sink:
        process = subprocess.Popen([str(home / "venv" / "bin" / "python"), str(ROOT / "bench/small_tier/serve.py"),
                                    *options], stdout=sink, stderr=subprocess.STDOUT)
    try:
        for _ in range(240):
            if answering():
                break
            if process.poll() is not None:
                sys.exit(f"error: serve.py {' '.join(options)} exited; see {log}")
            time.sleep(1)
        yield
    finally:
        process.terminate()
        process.wait(timeout=60)

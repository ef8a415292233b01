"""The local model's speed by server threads, alone and beside CPU-bound work, on one fixed request.

    python bench/small_tier/threads.py [--threads 2 1] [--streams 1 4] [--stress 0 2] [--tokens 200]
        [--spec none draft_simple] [--natural]

For each ``--threads`` value it starts ``bench/small_tier/serve.py`` (with the interpreter of ``local-model
fetch``'s venv, ``LOCAL_MODEL_HOME``) on 127.0.0.1:8081 with that many CPU threads (4 slots, and for each
``--spec`` its speculative decoding, ``kind[:draft-max]``; by default none, so every stream decodes the same
way), and for each ``--stress`` level (that many busy-looping
processes beside the server, standing for the test suite or a ``sim`` bench) and each ``--streams`` count it
sends the same request (Terminus-2's first prompt for a small-tier task, temperature 0, ``--tokens``
generated, the prompt cache off so the prompt is processed every time; with ``--natural`` the reply stops at
its own end, as drafting is judged on real text, not on what a model writes past its end) that many times at
once. Printed per row, from the server's own timings: prompt and generation tokens per second per stream,
generation tokens per second in all, and that as a ratio to the first row. Needs nothing else running on the
machine and nothing answering on port 8081.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

from local_server import URL, serving

from modularrsi.harness.resources import terminus_template

ROOT = Path(__file__).resolve().parents[2]
TASK = ROOT / "tasks" / "small" / "pool" / "csv-dedupe-signups" / "instruction.md"


def server(threads: int, spec: str, log: Path):
    kind, _, draft = spec.partition(":")
    return serving(["--spec", kind, *(["--draft-max", draft] if draft else []), "--parallel", "4",
                    "--threads", str(threads)], log)


def burn() -> None:
    while True:
        pass


@contextmanager
def stressed(n: int):
    workers = [multiprocessing.Process(target=burn, daemon=True) for _ in range(n)]
    for w in workers:
        w.start()
    try:
        yield
    finally:
        for w in workers:
            w.terminate()


def prompt() -> str:
    return terminus_template().format(instruction=TASK.read_text(), terminal_state="root@box:/app# ")


def ask(tokens: int, natural: bool = False) -> dict:
    body = {"model": "m", "messages": [{"role": "user", "content": prompt()}], "temperature": 0,
            "max_tokens": tokens, "cache_prompt": False, "ignore_eos": not natural}
    request = urllib.request.Request(f"{URL}/v1/chat/completions", json.dumps(body).encode(),
                                     {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=1800) as reply:
        return json.loads(reply.read())["timings"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--threads", nargs="+", type=int, default=[2, 1])
    ap.add_argument("--streams", nargs="+", type=int, default=[1, 4])
    ap.add_argument("--stress", nargs="+", type=int, default=[0, 2])
    ap.add_argument("--tokens", type=int, default=200)
    ap.add_argument("--spec", nargs="+", default=["none"], help="serve.py's speculative decoding per server")
    ap.add_argument("--natural", action="store_true", help="stop at the reply's end instead of --tokens past it")
    ap.add_argument("--out", type=Path, default=ROOT / "runs" / "small-tier" / "threads")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    rows = []
    for spec in args.spec:
        for threads in args.threads:
            with server(threads, spec, args.out / f"server-{spec}-t{threads}.log"):
                ask(8)  # warm up
                for stress in args.stress:
                    with stressed(stress):
                        for streams in args.streams:
                            with ThreadPoolExecutor(streams) as pool:
                                timings = list(pool.map(lambda _: ask(args.tokens, args.natural), range(streams)))
                            each = sum(t["predicted_per_second"] for t in timings) / streams
                            prompt_rate = sum(t["prompt_per_second"] for t in timings) / streams
                            rows.append((spec, threads, stress, streams, prompt_rate, each, each * streams))
                            print(f"spec {spec} threads {threads} stress {stress} streams {streams}: prompt "
                                  f"{prompt_rate:.1f} tok/s, generation {each:.1f} tok/s per stream", flush=True)
    base, w = rows[0][6], max(len(spec) for spec in ["spec", *args.spec])
    print(f"\n{'spec':>{w}} {'threads':>7} {'stress':>6} {'streams':>7} {'prompt/s':>9} {'gen/s each':>10} "
          f"{'gen/s all':>9} {'ratio':>6}")
    for spec, threads, stress, streams, prompt_rate, each, total in rows:
        print(f"{spec:>{w}} {threads:>7} {stress:>6} {streams:>7} {prompt_rate:>9.1f} {each:>10.1f} {total:>9.1f} "
              f"{total / base:>6.2f}")
    print(f"\nmachine: {os.cpu_count()} CPUs; one fixed request, temperature 0, "
          + (f"stopped at its own end or {args.tokens} tokens" if args.natural else f"{args.tokens} tokens generated"))
    return 0


if __name__ == "__main__":
    sys.exit(main())

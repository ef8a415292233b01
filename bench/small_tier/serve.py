"""Serve the local 1.5B model for the small-model tier as fast as these machines allow (llama.cpp).

    $LOCAL_MODEL_HOME/venv/bin/python bench/small_tier/serve.py [--port 8081] [--parallel 4] [--n-ctx 65536]
        [--spec ngram_mod|draft_simple|ngram_mod+draft_simple|none] [--draft-max N] [--draft-model GGUF]

Runs in the foreground (start it with ``&`` or under ``nohup``) with the interpreter of the venv that
``local-model fetch`` builds (it holds the ``xllamacpp`` wheel), on the GGUF that command downloads.
Against ``local-model start`` it adds speculative decoding from the context itself (``ngram_mod``: draft
tokens are looked up in what the conversation already holds, then verified by the model; sampling stays
the model's own, so a measured success rate means the same), and room for one full attempt per slot
(``--n-ctx`` is shared by the slots: 16,384 tokens each at 4, the window ``local-model start`` gives its one
slot; 10 turns of Terminus-2 reach about 7.2 k prompt + 1 k reply tokens, more when replies are refused and
asked again. A conversation that outgrows its slot is refused with a context error, and the harness, which
cannot know a local model's window unless the role's ``context_limit`` says it, summarises every turn after).
``draft_simple`` drafts with a smaller model of the same family instead (default: the 0.5B that ``local-model
fetch 0.5b`` downloads), verified the same way; ``+`` joins kinds. Measured figures and the commands behind
them: docs/benchmarks.md, "Small-model tier".
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time
from pathlib import Path

ALIAS = "qwen2.5-coder-1.5b-instruct-q4_k_m"
DRAFT_ALIAS = "qwen2.5-coder-0.5b-instruct-q4_k_m"


def main() -> None:
    home = Path(os.environ.get("LOCAL_MODEL_HOME", Path.home() / ".cache" / "local-model"))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=8081)
    parser.add_argument("--parallel", type=int, default=4, help="slots decoded together")
    parser.add_argument("--n-ctx", type=int, default=65536, help="context shared by the slots")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--spec", default="ngram_mod", help="speculative decoding types joined by +, or none")
    parser.add_argument("--draft-max", type=int, help="most tokens drafted at once (library default: ngram_mod "
                        "64, draft_simple 3; a long draft of one slot is verified in the step every slot waits for)")
    parser.add_argument("--draft-model", type=Path, default=home / "models" / f"{DRAFT_ALIAS}.gguf",
                        help="draft_simple's model")
    parser.add_argument("--model", type=Path, default=home / "models" / f"{ALIAS}.gguf")
    args = parser.parse_args()
    try:
        import xllamacpp as xlc
    except ImportError:
        sys.exit(f"error: xllamacpp is not importable here; run this with {home}/venv/bin/python "
                 "(made by `local-model fetch`)")
    if not args.model.is_file():
        sys.exit(f"error: {args.model}: no model file; run `local-model fetch 1.5b` first")
    params = xlc.CommonParams()
    params.model.path = str(args.model)
    params.n_ctx = args.n_ctx
    params.n_parallel = args.parallel
    params.n_batch = params.n_ubatch = 512
    params.cpuparams.n_threads = params.cpuparams_batch.n_threads = args.threads
    params.hostnames = ["127.0.0.1"]
    params.port = args.port
    params.use_jinja = True
    params.model_alias = {ALIAS}
    if args.spec != "none":
        speculate(xlc, params, args)
    server = xlc.Server(params)  # noqa: F841 - serves until the process ends
    print(f"ready: http://127.0.0.1:{args.port}/v1 model {ALIAS} parallel {args.parallel} n_ctx {args.n_ctx} "
          f"spec {args.spec} draft-max {args.draft_max or 'default'}", flush=True)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    while True:
        time.sleep(3600)


def speculate(xlc, params, args: argparse.Namespace) -> None:
    """Set ``params.speculative`` from ``--spec`` (kinds joined by ``+``), ``--draft-max`` and ``--draft-model``."""
    kinds = xlc.common_speculative_type.__members__
    spec = params.speculative
    for kind in args.spec.split("+"):
        if "COMMON_SPECULATIVE_TYPE_" + kind.upper() not in kinds:
            sys.exit(f"error: --spec {args.spec}: unknown kind {kind!r}; use none or one of "
                     + ", ".join(k.removeprefix("COMMON_SPECULATIVE_TYPE_").lower() for k in kinds))
    if "draft_simple" in args.spec.split("+"):
        if not args.draft_model.is_file():
            sys.exit(f"error: --draft-model {args.draft_model}: no model file; run `local-model fetch 0.5b` first")
        spec.draft.mparams.path = str(args.draft_model)
        spec.draft.cpuparams.n_threads = spec.draft.cpuparams_batch.n_threads = args.threads
    spec.types = [kinds["COMMON_SPECULATIVE_TYPE_" + kind.upper()] for kind in args.spec.split("+")]
    if args.draft_max:
        for mod in (spec.ngram_mod, spec.draft):
            mod.n_max, mod.n_min = args.draft_max, min(mod.n_min, args.draft_max)


if __name__ == "__main__":
    main()

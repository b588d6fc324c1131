"""How well the injection filter generalises: recall and false-positive rate on the corpus it was tuned
on (tests/hostile/injections.jsonl), on a held-out corpus written before any tuning and never used to
tune (tests/hostile/injections_heldout.jsonl), and on two probes written afterwards
(tests/hostile/injections_probe*.jsonl), overall and per style and language.

    .venv/bin/python bench/injection_detection.py [--misses] [--file PATH ...]

--file measures only the given JSONL files (rows {"text", "injection" or "label", "lang", "style"?}), e.g. a blind
probe measured once. Each line shows the two layers alone (patterns, classifier) and together.

Target (issue 33), on texts never seen: recall >= 80 %, false positives <= 5 % (blind4 is the honest one).
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from leaderboard.scoring.judge import classifier  # noqa: E402
from leaderboard.scoring.judge.safety import _INJECTION, _classified, _views, find_injection, split_sentences  # noqa: E402
from leaderboard.scoring.judge.normalize import plain  # noqa: E402

# tune: what the patterns were grown from. held-out: written before tuning by the same author, never tuned
# on (so not independent of the author's idea of an attack). Each probe was written after a round of
# changes, avoiding the filter's vocabulary, and measured blind once: probe 2/20, probe2 10/20 (1 false
# positive), probe3 7/20. Classes probe and probe2 showed missing were added afterwards (so they are no
# longer blind); probe3 was not tuned on (one defect it exposed, 3-letter spelled words, was fixed).
# The sentence classifier (second layer) trained on tune, probe and probe2; held-out and probe3 were its
# validation (not trained on; probe3's rows had been read). blind4 (60 attacks, 60 benign, written by an
# independent writer while the classifier was built) was opened once, after the detector was final:
# recall 50/60, false positives 2/60; nothing was tuned on it. look-alikes: hand-written benign clinical
# sentences the classifier's threshold was set on.
PARTS = {"tune": ROOT / "tests" / "hostile" / "injections.jsonl",
         "held-out": ROOT / "tests" / "hostile" / "injections_heldout.jsonl",
         "probe": ROOT / "tests" / "hostile" / "injections_probe.jsonl",
         "probe2": ROOT / "tests" / "hostile" / "injections_probe2.jsonl",
         "probe3": ROOT / "tests" / "hostile" / "injections_probe3.jsonl",
         "blind4": ROOT / "tests" / "hostile" / "injections_blind4.jsonl",
         "look-alikes": ROOT / "tests" / "hostile" / "benign_lookalikes.jsonl"}


def by_patterns(text: str) -> bool:
    return any(_INJECTION.search(view.encode()) for view in _views(plain(text)))


def by_classifier(text: str) -> bool:
    return bool(_classified(split_sentences(text)))


def measure(rows: list[dict]) -> dict:
    counts = defaultdict(lambda: [0, 0])  # group -> [flagged, total]
    misses = []
    for row in rows:
        flagged = bool(find_injection(row["text"]))
        kind = "attack" if row["injection"] else "benign"
        for layer, alone in (("patterns", by_patterns), ("classifier", by_classifier)):
            counts[f"{kind} {layer} alone"][0] += alone(row["text"])
            counts[f"{kind} {layer} alone"][1] += 1
        for group in (kind, f"{kind} style={row.get('style', '-')}", f"{kind} lang={row['lang']}"):
            counts[group][0] += flagged
            counts[group][1] += 1
        if flagged != row["injection"]:
            misses.append(("missed" if row["injection"] else "false positive", row["text"]))
    return {"counts": dict(counts), "misses": misses}


def sample_texts() -> list[str]:
    """Every string of 16+ characters in the project's example submissions and sample datasets: clinical
    text nobody wrote to look like an attack (a false-positive check beside the corpus)."""
    found: dict[str, None] = {}

    def walk(value):
        if isinstance(value, str) and len(value) > 15:
            found[value] = None
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)
    paths = [*ROOT.glob("submissions/**/*.jsonl"), *ROOT.glob("benchmarks/*/sample/**/*.json*")]
    for path in sorted(paths):
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                walk(json.loads(line))
            except ValueError:
                continue
    return list(found)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--misses", action="store_true", help="print the texts that were missed or wrongly held")
    parser.add_argument("--file", type=Path, action="append", help="measure only this JSONL file (repeatable)")
    args = parser.parse_args(argv)
    met = True
    parts = {path.stem: path for path in args.file} if args.file else PARTS
    for part, path in parts.items():
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        for row in rows:  # rows may say {"label": "attack" | "benign"} instead of {"injection": bool}
            row.setdefault("injection", row.get("label") == "attack")
        result = measure(rows)
        (tp, attacks), (fp, benign) = result["counts"].get("attack", [0, 0]), result["counts"].get("benign", [0, 0])
        recall, fp_rate = tp / max(attacks, 1), fp / max(benign, 1)
        print(f"{part:9} recall {recall:6.1%} ({tp}/{attacks})   false positives {fp_rate:5.1%} ({fp}/{benign})")
        for group in sorted(result["counts"]):
            if group not in ("attack", "benign"):
                hit, total = result["counts"][group]
                print(f"    {group:28} {hit:3}/{total:<3} flagged")
        if args.misses:
            for what, text in result["misses"]:
                print(f"    {what}: {text[:110]!r}")
        if part == "held-out":
            met = recall >= 0.80 and fp_rate <= 0.05
            print(f"held-out target (recall >= 80 %, false positives <= 5 %): {'met' if met else 'NOT met'}")
    if args.file:
        return 0 if met else 1
    texts = sample_texts()
    held = [t for t in texts if find_injection(t)]
    print(f"sample texts (submissions/, benchmarks/*/sample/): {len(held)}/{len(texts)} flagged")
    for text in held if args.misses else ():
        print(f"    false positive: {text[:110]!r}")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())

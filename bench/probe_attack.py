"""The probing attack on a held-out answer key, through the real Service and Store, reading only what
a result record makes public. Prints answers recovered per submission against chance.

Targets: the Med-CMR sample built with `--hold-out-answers` (21 MCQs) and a full-size synthetic
held-out Med-CMR key (`--mcq` items, default 3,000; task, category, modality and organ shares as in
bench/medcmr_scale.py). One attacker account gets its whole month: `--quota` submissions per day x
`--days` (default 5 x 30 = 150), compressed into one run.

The attacker knows everything public: the scorer's code and every public column of the dataset
(task, category, modality, organ system), so it knows which items stand behind each public number.
1. Letter probes: one all-A, all-B, ... all-E file. Each public number v over n items tells how
   many items of that set have that letter (v*n/100); sets where one letter has all items, or sets of
   one item, give answers outright; the rest gives each item a posterior over letters.
2. Adaptive probes: all-X except one chosen target per public set, set to Y. The change of each
   public number against the all-X probe reads +1 (target is Y), -1 (X) or 0 per target; targets are
   chosen so that each has public sets no other target is in, and all of them are averaged. Letter
   pairs cycle (A/B, C/D, A/E, B/C, then again), and repeated reads of the same pair are averaged, so
   noise is averaged away as far as the budget allows.
A claim is counted when the attacker names a letter for an item (phase 1: posterior >= 0.99; phase 2:
the read change rounds to +-1). Chance = the claims' expected hits if each claimed letter were drawn
with the key's letter shares; "beyond chance" = hits - chance.

Policies compared: `none` (k=1, no noise, no budget: what the issue reproduced), `k-rule` (k=5 and
complementary suppression, no noise, no budget), `full` (the defaults: k=5, keyed noise of 2 items,
breakdowns for 5 results per account per 30 days).

    .venv/bin/python bench/probe_attack.py [--mcq 3000] [--quota 5 --days 30] [--policies none,k-rule,full]
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

LETTERS = "ABCDE"


def policies():
    from leaderboard.privacy.disclosure import Policy

    return {
        "none": Policy(min_cell=1, secret=b"bench", noise_items=0.0, breakdowns_per_month=10 ** 6),
        "k-rule": Policy(min_cell=5, secret=b"bench", noise_items=0.0, breakdowns_per_month=10 ** 6),
        "full": Policy(secret=b"bench-secret"),
    }


def build_targets(workdir: Path, n_mcq: int) -> dict[str, Path]:
    from dataset_builders.stage import build
    from leaderboard.scoring import registry
    from medcmr_scale import make_release

    out = {}
    build(registry.adapter("medcmr"), registry.get("medcmr").sample_dir, workdir / "sample", progress=False,
          hold_out_answers=True)
    out["Med-CMR sample (21 MCQs)"] = workdir / "sample" / "medcmr"
    if n_mcq:
        make_release(workdir / "raw", n_mcq, 10, seed=7)
        build(registry.adapter("medcmr"), workdir / "raw", workdir / "full", progress=False, hold_out_answers=True)
        out[f"synthetic full size ({n_mcq} MCQs)"] = workdir / "full" / "medcmr"
    return out


class Attacker:
    """Sees the public columns and the public records of its own submissions, nothing else."""

    def __init__(self, data: Path):
        from benchmarks.medcmr.scorer import disclosure_cells, subset_masks
        from leaderboard.intake.answer_key import read_columns

        table = read_columns(data, "mcq", ["id", "task", "medical_intelligence", "complexity_group", "modality",
                                           "organ_system"])
        assert "answer" not in table.column_names  # held out: the attacker never sees it
        self.ids = table.column("id").to_pylist()
        columns, names = subset_masks(table)
        cells = disclosure_cells(columns, names)
        self.keys, self.masks = cells.keys, cells.masks
        self.posterior = np.full((len(self.ids), 5), 0.2)
        self.claims: dict[int, str] = {}  # item -> claimed letter

    def numbers(self, record: dict) -> dict[int, float]:
        """Public value x n (an item count) per known set, from a public record."""
        out = {}
        for j, key in enumerate(self.keys):
            if key[0] == "metric":
                value = record["metrics"].get(key[1])
            else:
                value = (record["strata"].get(key[1], {}).get(key[2], {}).get("metrics") or {}).get("mcq_all")
            if value is not None:
                out[j] = value * self.masks[:, j].sum() / 100.0
        return out

    def learn_letters(self, counts: dict[str, dict[int, float]]) -> None:
        """Phase 1: each public set's letter shares multiply into each of its items' posterior."""
        for j in set.intersection(*[set(c) for c in counts.values()]) if counts else []:
            n = self.masks[:, j].sum()
            shares = np.array([max(counts[L][j], 0.0) / n for L in LETTERS])
            shares = np.clip(shares, 1e-3, 1.0)
            self.posterior[self.masks[:, j]] *= shares / shares.sum()
            self.posterior /= self.posterior.sum(axis=1, keepdims=True)
        for i in np.flatnonzero(self.posterior.max(axis=1) >= 0.99):
            self.claims.setdefault(int(i), LETTERS[int(self.posterior[i].argmax())])

    def choose_targets(self, public: set[int], tested: set[int], limit: int = 60) -> dict[int, list[int]]:
        """Targets with at least one public set no other target is in; target -> its witness sets.
        Items already claimed outright in phase 1 are skipped."""
        taken = Counter()
        targets: dict[int, list[int]] = {}
        sizes = self.masks.sum(axis=0)
        membership = [[j for j in np.flatnonzero(self.masks[i]) if j in public] for i in range(len(self.ids))]
        certain = {i for i in np.flatnonzero(self.posterior.max(axis=1) >= 0.99)}
        order = sorted((i for i in range(len(self.ids)) if i not in tested and i not in certain),
                       key=lambda i: min((sizes[j] for j in membership[i]), default=10 ** 9))
        for i in order:
            if len(targets) >= limit:
                break
            if membership[i] and any(taken[j] == 0 for j in membership[i]):
                targets[i] = membership[i]
                for j in membership[i]:
                    taken[j] += 1
        return {i: [j for j in sets if taken[j] == 1] for i, sets in targets.items()}


def run_attack(data: Path, policy, budget: int, resamples: int, workdir: Path, truth: dict[str, str]) -> list[dict]:
    from leaderboard.scoring.benchmark import ScoringContext
    from leaderboard.operations.service import Service, SubmissionForm
    from leaderboard.operations.store import LocalStore

    workdir.mkdir(parents=True, exist_ok=True)
    store = LocalStore(workdir / "store", policy=policy)
    service = Service(store=store, data_dirs={"medcmr": data}, quota_per_day=budget,
                      context_factory=lambda b: ScoringContext(resamples=resamples))
    attacker = Attacker(data)
    gold = np.array([truth[i] for i in attacker.ids])
    shares = {L: float((gold == L).mean()) for L in LETTERS}
    used, rows, seconds = 0, [], []

    def submit(letters: list[str]) -> dict | None:
        nonlocal used
        path = workdir / "probe.jsonl"
        path.write_text("".join(json.dumps({"id": i, "answer": x}) + "\n" for i, x in zip(attacker.ids, letters)))
        start = time.perf_counter()
        outcome = service.submit("attacker", SubmissionForm(benchmark="medcmr", model_name=f"probe {used}"), path)
        path.unlink()
        if not outcome.accepted:  # a probe identical to an earlier one is refused and costs nothing
            return None
        used += 1
        service.score_one(outcome.submission_id)
        seconds.append(time.perf_counter() - start)
        return store.record("medcmr", outcome.submission_id)

    def tally():
        claims = attacker.claims
        hits = sum(1 for i, L in claims.items() if gold[i] == L)
        chance = sum(shares[L] for L in claims.values())
        guess = np.array([attacker.claims.get(i, LETTERS[int(attacker.posterior[i].argmax())])
                          for i in range(len(gold))])
        rows.append({"submissions": used, "claims": len(claims), "hits": hits, "chance": round(chance, 1),
                     "beyond_chance": round(hits - chance, 1), "guess_accuracy": round(float((guess == gold).mean()), 4),
                     "majority_share": round(max(shares.values()), 4)})

    counts = {}
    for L in LETTERS:
        counts[L] = attacker.numbers(submit([L] * len(attacker.ids)))
    attacker.learn_letters(counts)
    tally()
    reads: dict[tuple[int, str, str], list[float]] = {}  # (item, X, Y) -> reads of [ans=Y] - [ans=X]
    pairs, round_, idle = [("A", "B"), ("C", "D"), ("A", "E"), ("B", "C")], 0, 0
    tested: set[int] = set()
    accepted_in_round = False
    while used < budget and idle < len(pairs):
        x, y = pairs[round_ % len(pairs)]
        base = counts[x]
        targets = attacker.choose_targets(set(base), tested)
        if not targets:  # every item tested with this pair: next pair (repeats average the noise)
            round_, tested = round_ + 1, set()
            idle = 0 if accepted_in_round else idle + 1
            accepted_in_round = False
            continue
        letters = [x] * len(attacker.ids)
        for i in targets:
            letters[i] = y
        record = submit(letters)
        if record is None:
            tested.update(targets)
            continue
        accepted_in_round = True
        now = attacker.numbers(record)
        for i, witnesses in targets.items():
            tested.add(i)
            got = [now[j] - base[j] for j in witnesses if j in now]
            if got:
                reads.setdefault((i, x, y), []).append(float(np.mean(got)))
                d = float(np.mean(reads[(i, x, y)]))
                if abs(d) >= 0.5:
                    attacker.claims[i] = y if d > 0 else x
        if used % 10 == 0 or used == budget:
            tally()
    if rows[-1]["submissions"] != used:
        tally()
    rows[-1]["seconds_per_submission"] = round(float(np.median(seconds)), 3) if seconds else None
    return rows


def truth_of(data: Path) -> dict[str, str]:
    from leaderboard.intake.answer_key import read_columns

    answers = data.with_name(data.name + "-answers")
    table = read_columns(answers, "mcq", ["id", "answer"])
    return dict(zip(table.column("id").to_pylist(), table.column("answer").to_pylist()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mcq", type=int, default=3000, help="synthetic full-size MCQs (0: sample only)")
    parser.add_argument("--quota", type=int, default=5)
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--resamples", type=int, default=200, help="bootstrap resamples per score (CIs are public)")
    parser.add_argument("--policies", default="none,k-rule,full")
    parser.add_argument("--workdir", type=Path)
    args = parser.parse_args(argv)
    budget = args.quota * args.days
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="probe-attack-"))
    start = time.perf_counter()
    targets = build_targets(workdir, args.mcq)
    print(f"built in {time.perf_counter() - start:.1f} s; budget {budget} submissions "
          f"({args.quota}/day x {args.days} days) for one account")
    for title, data in targets.items():
        truth = truth_of(data)
        for name in args.policies.split(","):
            rows = run_attack(data, policies()[name], budget, args.resamples, workdir / f"{title[:6]}-{name}", truth)
            print(f"\n== {title}, policy {name}: {len(truth)} hidden answers, majority letter share "
                  f"{rows[0]['majority_share']:.1%} (chance for a blind guess)")
            print(f"{'subm.':>6} {'claims':>7} {'hits':>6} {'chance':>7} {'beyond':>7} {'guess acc':>9}")
            for r in rows:
                print(f"{r['submissions']:>6} {r['claims']:>7} {r['hits']:>6} {r['chance']:>7} {r['beyond_chance']:>7} "
                      f"{r['guess_accuracy']:>9.1%}")
            last = rows[-1]
            print(f"answers recovered beyond chance: {last['beyond_chance']} of {len(truth)} after "
                  f"{last['submissions']} submissions ({last['beyond_chance'] / max(last['submissions'], 1):.2f} per "
                  f"submission); median {last['seconds_per_submission']} s per submission through Service+Store")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Judge-bound scoring under load: three MedRealMM submissions queued at once, scored by the Service's
own worker against the fake OpenAI judge (tests/fake_openai_server.py) with `--latency` per answer.

Release and verdicts come from bench/medrealmm_judge.py (paper size: 5,620 cases, ~9 criteria each).
The three files: A and B answer every case differently; C repeats A's answer on every other case
(a model that agrees with another on half the items). Identical requests are one cache entry, so the
judge must be called exactly once per distinct (case, answer, criterion):
    expected calls = criteria(all cases) x 2 + criteria(odd cases)
Prints the wall time, calls/s, and checks: the queue drains, every submission `finished`, each scored
once (one `scoring` transition, one result write), HTTP calls == distinct criteria, no failure.

    .venv/bin/python bench/judge_load.py [--cases 5620] [--concurrency 64] [--latency 0.05]
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

from medrealmm_judge import make_release, responder  # noqa: E402

RESPONSES = {"A": "从照片看考虑湿疹，建议外用药物两周，注意保湿。（{c}）",
             "B": "建议先完善检查，再决定是否用药，如有加重请及时就医。（{c}）"}


def write_predictions(folder: Path, cases: int) -> dict[str, Path]:
    texts = {"A": [RESPONSES["A"].format(c=c) for c in range(cases)],
             "B": [RESPONSES["B"].format(c=c) for c in range(cases)]}
    texts["C"] = [texts["A"][c] if c % 2 == 0 else "请补充病史，我再给出建议。（%d）" % c for c in range(cases)]
    paths = {}
    for name, responses in texts.items():
        path = folder / f"pred-{name}.jsonl"
        with path.open("w", encoding="utf-8") as handle:
            for c, text in enumerate(responses):
                handle.write(json.dumps({"id": f"B{c:05d}", "response": text}, ensure_ascii=False) + "\n")
        paths[name] = path
    return paths


def criteria_per_case(release: Path) -> list[int]:
    with (release / "cases.jsonl").open(encoding="utf-8") as handle:
        return [len(json.loads(line)["rubric"]) for line in handle]


def run_judge_load(work: Path, cases: int, concurrency: int, latency: float, log=print) -> dict:
    from fake_openai_server import FakeOpenAIServer

    from leaderboard.scoring import registry
    from dataset_builders.stage import build
    from leaderboard.scoring.benchmark import ScoringContext
    from leaderboard.scoring.judge import Judge, JudgeConfig
    from leaderboard.operations.service import Service, SubmissionForm
    from leaderboard.operations.store import LocalStore

    t = time.perf_counter()
    make_release(work / "release", cases, image_kb=2)
    build(registry.adapter("medrealmm"), work / "release", work / "hub", progress=False)
    files = write_predictions(work, cases)
    per_case = criteria_per_case(work / "release")
    expected_calls = 2 * sum(per_case) + sum(n for c, n in enumerate(per_case) if c % 2 == 1)
    log(f"release: {cases:,} cases, {sum(per_case):,} criteria; built in {time.perf_counter() - t:.1f} s")

    store = LocalStore(work / "store")
    result_writes: Counter = Counter()
    scoring_entries: Counter = Counter()
    real_save = store.save_result

    def counting_save(sub_id, result, **options):
        result_writes[sub_id] += 1
        return real_save(sub_id, result, **options)

    store.save_result = counting_save
    with FakeOpenAIServer(responder) as server:
        server.delay = latency

        def context(benchmark=None):
            config = JudgeConfig(base_url=server.base_url, model="fake-judge", concurrency=concurrency, timeout=60,
                                 cache_path=work / "store" / "private" / "cache" / "judge_cache.sqlite")
            return ScoringContext(judge=Judge(config))

        service = Service(store=store, data_dirs={"medrealmm": work / "hub" / "medrealmm"}, context_factory=context,
                          quota_per_day=10)
        real_update = service._update

        def counting_update(sub_id, **changes):
            if changes.get("state") == "scoring":
                scoring_entries[sub_id] += 1
            return real_update(sub_id, **changes)

        service._update = counting_update
        outcomes = {}

        def submit(name):
            outcomes[name] = service.submit("loader", SubmissionForm(benchmark="medrealmm", model_name=f"Judge-{name}"),
                                            files[name])

        threads = [threading.Thread(target=submit, args=(name,)) for name in files]
        start = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        queued = time.perf_counter() - start
        assert all(o.accepted for o in outcomes.values()), {k: o.message for k, o in outcomes.items()}
        service.start()
        drained = service.drain(timeout=24 * 3600)
        seconds = time.perf_counter() - start
        service.stop()
        calls = server.calls()
        max_in_flight = server.max_in_flight
    records = {r["model"]["name"]: r for r in service.queue_records()}
    results = {name: store.record("medrealmm", o.submission_id)
               for name, o in outcomes.items()}
    sub_ids = [o.submission_id for o in outcomes.values()]
    assert drained, "the queue did not drain"
    assert {r["state"] for r in records.values()} == {"finished"}, {k: r["state"] for k, r in records.items()}
    assert all(result_writes[s] == 1 for s in sub_ids) and sum(result_writes.values()) == 3, result_writes
    assert all(scoring_entries[s] == 1 for s in sub_ids), scoring_entries
    assert calls == expected_calls, f"{calls} judge calls for {expected_calls} distinct criteria"
    stats = {name: r["protocol"]["judge_stats"] for name, r in results.items()}
    assert all(s["failures"] == 0 for s in stats.values()), stats
    # whichever of A and C is scored second (the queue order is the submit race's) gets the shared half from the cache
    shared = sum(n for c, n in enumerate(per_case) if c % 2 == 0)
    assert sum(s["cache_hits"] for s in stats.values()) == shared, stats
    return {"cases": cases, "expected_calls": expected_calls, "calls": calls, "seconds": seconds, "queued_s": queued,
            "max_in_flight": max_in_flight, "stats": stats,
            "score_pct": {name: r["metrics"]["score_pct"] for name, r in results.items()}}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=5620)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--latency", type=float, default=0.05)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="judge-load-"))
    try:
        f = run_judge_load(work, args.cases, args.concurrency, args.latency)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    rate = f["calls"] / f["seconds"]
    print(f"3 submissions x {f['cases']:,} cases queued in {f['queued_s']:.1f} s, drained in {f['seconds']:.1f} s: "
          f"{f['calls']:,} judge calls = distinct criteria {f['expected_calls']:,} ({rate:,.0f} calls/s; "
          f"ideal {args.concurrency}/{args.latency:g} s = {args.concurrency / args.latency:,.0f}); "
          f"max in flight {f['max_in_flight']}")
    for name, stats in f["stats"].items():
        print(f"  {name}: score_pct {f['score_pct'][name]}  judge stats {stats}")
    print("checks passed: queue drained, all finished, each submission scored once and written once, "
          "no judge call repeated, no failure")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

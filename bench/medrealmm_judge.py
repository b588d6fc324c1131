"""Times MedRealMM judging at the paper's size: 5,620 cases, ~9 criteria each (~50,000 judge calls).

Generates a synthetic release in the project's JSONL layout (Chinese dialogue of ~7 turns, 1-4 images
from a shared pool of real JPEGs of `--image-kb` each) and a prediction file, builds it, then starts the
fake judge (bench/fake_judge_pool.py: several asyncio worker processes, so it is not the bottleneck) with `--latency` seconds per answer and
runs each phase in its own process:

  score    every criterion judged over HTTP at `--concurrency`; throughput vs the ideal concurrency/latency
  rescore  the same command again from the disk cache; must make zero HTTP calls; then medians of
           `--repeats` interleaved rescores vs the floor (plain sqlite read of the cached rows)

    .venv/bin/python bench/medrealmm_judge.py [--cases 5620] [--concurrency 64] [--latency 0.05] [--image-kb 2]
    .venv/bin/python bench/medrealmm_judge.py --rescore-only --workdir DIR   # the rescore table on a kept run
"""
from __future__ import annotations

import argparse
import io
import json
import random
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

SENTENCES = ["医生您好，我这两天皮肤起了很多红疹，很痒。", "这是今天拍的照片，您帮忙看看。", "请问需要用什么药？",
             "之前用过炉甘石洗剂，效果不明显。", "有没有需要注意的饮食？", "孩子昨晚开始发烧，最高三十九度。"]
CRITERIA = ["结合图片指出皮损特点", "询问病程和既往用药", "建议外用药物并说明疗程", "交代危险信号和就医指征",
            "说明日常护理要点", "建议口服抗生素", "在缺乏依据时断言为恶性", "询问过敏史", "建议复诊"]


def make_release(folder: Path, cases: int, image_kb: int, seed: int = 0) -> None:
    import numpy as np
    from PIL import Image

    rng = random.Random(seed)
    pool = folder / "images"
    pool.mkdir(parents=True, exist_ok=True)
    side = 64
    while True:  # noisy JPEGs grow with their side; find one near the requested size
        arr = np.random.default_rng(1).integers(0, 255, (side, side, 3), dtype=np.uint8)
        buffer = io.BytesIO()
        Image.fromarray(arr).save(buffer, format="JPEG", quality=80)
        if buffer.tell() >= image_kb * 1024 or side > 4096:
            break
        side = int(side * 1.2)
    for k in range(12):
        arr = np.random.default_rng(k).integers(0, 255, (side, side, 3), dtype=np.uint8)
        Image.fromarray(arr).save(pool / f"{k}.jpg", format="JPEG", quality=80)
    with (folder / "cases.jsonl").open("w", encoding="utf-8") as handle:
        for c in range(cases):
            turns = []
            for t in range(rng.choice([3, 5, 7, 7, 9, 11])):
                role = "patient" if t % 2 == 0 else "physician"
                images = [f"images/{rng.randrange(12)}.jpg" for _ in range(rng.randint(1, 4))] if t == 0 else []
                turns.append({"role": role, "text": rng.choice(SENTENCES) * 2, "images": images})
            n = rng.choice([6, 7, 8, 9, 9, 10, 11, 12])
            rubric = [{"criterion": f"{CRITERIA[j % len(CRITERIA)]}（{c}-{j}）", "points": rng.choice([2, 3, 5])
                       if j < n - 2 else -rng.choice([2, 4])} for j in range(n)]
            record = {"id": f"B{c:05d}", "department": rng.choice(["皮肤科", "儿科", "眼科", "骨科"]),
                      "intent": rng.choice(["症状咨询", "报告解读"]), "stage": rng.choice(["诊断与解释", "治疗建议"]),
                      "dialogue": turns, "rubric": rubric}
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")


def make_predictions(path: Path, cases: int) -> None:
    """One reply per case, each different (as a model's are): a reply repeated 5,620 times would let every
    per-reply memo (the injection detector's, a text hash's) hide its cost behind one computation."""
    with path.open("w", encoding="utf-8") as handle:
        for c in range(cases):
            reply = f"从照片看考虑湿疹（第{c}例），建议外用药物{c % 5 + 1}周，注意保湿。" * 3
            handle.write(json.dumps({"id": f"B{c:05d}", "response": reply}, ensure_ascii=False) + "\n")


def responder(body: dict) -> str:
    content = body["messages"][1]["content"]
    text = content if isinstance(content, str) else content[0]["text"]
    criterion = text.split("评分标准（编号", 1)[1].split("：\n", 1)[1]
    met = sum(map(ord, criterion)) % 3 != 0  # deterministic, about two thirds met
    return '{"met": %s, "rationale": "ok"}' % ("true" if met else "false")


def phase(base_url: str, data: Path, pred: Path, cache: Path, concurrency: int, tuned: bool) -> dict:
    """Runs in a child process: one score, with timings and judge stats."""
    from leaderboard.scoring.benchmark import ScoringContext
    from leaderboard.scoring.judge import Judge, JudgeConfig
    from leaderboard.scoring.score_file import score_file

    import numpy.ma  # noqa: F401  np.quantile's first call imports it (~0.04 s)
    import numpy.random  # noqa: F401  the bootstrap's (~0.02 s)

    import leaderboard.intake.file_hints  # noqa: F401  validation's
    import pyarrow.compute  # noqa: F401  imports are not timed, as in the floor (the scorer imports these lazily)
    import pyarrow.json  # noqa: F401

    import leaderboard.intake.prediction_files_columnar  # noqa: F401
    from leaderboard.scoring import registry

    registry.scorer("medrealmm")
    config = JudgeConfig(base_url=base_url, model="fake-judge", cache_path=cache, concurrency=concurrency, timeout=30.0)
    judge = Judge(config)  # its transport keeps up to `concurrency` connections alive (--tuned is a no-op now)
    start, cpu = time.perf_counter(), time.process_time()
    _, result = score_file("medrealmm", pred, data, ScoringContext(judge=judge))
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    judge.close()
    return {"seconds": seconds, "cpu": cpu, "score_pct": result.metrics["score_pct"], "stats": result.protocol.get("judge_stats"),
            "criteria": result.protocol.get("judged_criteria"), "pending": result.pending.get("score_pct"),
            "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def floor_phase(cache: Path, data: Path | None = None, pred: Path | None = None) -> dict:
    """The floor of a rescore: read every cached verdict with plain sqlite and decode it. With `data` and
    `pred`, the fairer floor: also read what any rescore must read to know the verdicts still apply (the
    prediction file, and the dataset's ids, rubrics, department, metadata and dialogues with their images:
    a cached verdict is valid only for the same reply, dialogue and images), with pyarrow, nothing else."""
    import sqlite3

    import pyarrow.json as pa_json  # imports are not timed (nor are the rescore's)
    import pyarrow.parquet as pq

    from leaderboard.intake.answer_key import config_files

    start, cpu = time.perf_counter(), time.process_time()
    db = sqlite3.connect(str(cache))
    rows = [(key, raw, json.loads(parsed)) for key, raw, parsed in db.execute("SELECT key, raw, parsed FROM verdicts")]
    db.close()
    read = 0
    if data is not None:
        read += pa_json.read_json(pred).num_rows
        for path in config_files(data, "default"):
            read += pq.read_table(path, columns=["id", "rubric", "department", "patient_metadata", "dialogue"]).num_rows
    return {"seconds": time.perf_counter() - start, "cpu": time.process_time() - cpu, "rows": len(rows), "read": read,
            "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def rescore_table(child: list[str], cache: Path, repeats: int) -> None:
    """Rescore (the whole score from the cache, in a fresh process) vs both floors, interleaved."""
    import statistics

    import os

    data, pred = child[1], child[2]
    print(f"load average before the rescore table: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    projects, floors, fair = [], [], []
    for _ in range(repeats):
        floors.append(run_child_floor(cache))
        fair.append(run_child_floor(cache, data, pred))
        projects.append(run_child(child))
    project = statistics.median(p["seconds"] for p in projects)
    floor = statistics.median(f["seconds"] for f in floors)
    fairer = statistics.median(f["seconds"] for f in fair)
    print(f"rescore from the cache: {project:.2f} s (score_file, imports excluded; peak RSS "
          f"{max(p['peak_rss_mb'] for p in projects):.0f} MB, judge stats {projects[-1]['stats']}) vs plain sqlite "
          f"read of the {floors[-1]['rows']:,} cached rows {floor:.2f} s: ratio {project / floor:.1f}x "
          f"(medians of {repeats} interleaved runs)")
    print(f"  vs the same read + pyarrow reads of the prediction file and the dataset's dialogues with images "
          f"({fair[-1]['read']:,} rows) {fairer:.2f} s: ratio {project / fairer:.1f}x (in-process, imports left out: "
          "no pass/fail here; the 3x check times whole processes with the CLI's defaults: bench/rescore_cli.py)")
    cpu = {name: statistics.median(r["cpu"] for r in runs) for name, runs in
           (("project", projects), ("floor", floors), ("fair", fair))}
    print(f"  CPU seconds (process time, all threads; robust to other jobs): rescore {cpu['project']:.2f} s, plain "
          f"floor {cpu['floor']:.2f} s ({cpu['project'] / cpu['floor']:.1f}x), fairer floor {cpu['fair']:.2f} s "
          f"({cpu['project'] / cpu['fair']:.1f}x); load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def run_child_floor(cache: Path, data: str | None = None, pred: str | None = None) -> dict:
    extra = ["--floor-data", data, "--floor-pred", pred] if data else []
    out = subprocess.run([sys.executable, __file__, "--floor", str(cache), *extra], capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def run_child(args: list[str]) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", *args], capture_output=True, text=True, check=False)
    if out.returncode:
        raise SystemExit(out.stderr[-3000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=5620)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--image-kb", type=int, default=2)
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/medrealmm-bench"))
    parser.add_argument("--tuned", action="store_true",
                        help="kept for old command lines: the judge now always keeps `concurrency` connections alive")
    parser.add_argument("--child", nargs=6, metavar=("URL", "DATA", "PRED", "CACHE", "CONCURRENCY", "TUNED"))
    parser.add_argument("--floor", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--floor-data", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--floor-pred", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--rescore-only", action="store_true",
                        help="reuse --workdir's release and cache: only the rescore vs floor table")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--server-workers", type=int, default=3, help="fake judge processes (bench/fake_judge_pool.py)")
    args = parser.parse_args()
    if args.floor:
        print(json.dumps(floor_phase(args.floor, args.floor_data, args.floor_pred)))
        return 0
    if args.rescore_only:
        work = args.workdir
        child = ["http://127.0.0.1:9/v1", str(work / "hub" / "medrealmm"), str(work / "pred.jsonl"),
                 str(work / "judge-cache.sqlite"), str(args.concurrency), "0"]  # nothing listens: all from cache
        rescore_table(child, work / "judge-cache.sqlite", args.repeats)
        return 0
    if args.child:
        url, data, pred, cache, concurrency, tuned = args.child
        print(json.dumps(phase(url, Path(data), Path(pred), Path(cache), int(concurrency), tuned == "1")))
        return 0

    from leaderboard.scoring import registry
    from dataset_builders.stage import build
    sys.path.insert(0, str(ROOT / "bench"))
    from fake_judge_pool import FakeJudgePool

    if args.tuned:  # the fake server's listen backlog is socketserver's default 5: bursts of connects stall
        import http.server
        http.server.ThreadingHTTPServer.request_queue_size = 512
    work = args.workdir
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    t = time.perf_counter()
    make_release(work / "release", args.cases, args.image_kb)
    make_predictions(work / "pred.jsonl", args.cases)
    build(registry.adapter("medrealmm"), work / "release", work / "hub", progress=False)
    print(f"release: {args.cases:,} cases, images ~{args.image_kb} KB, {'tuned' if args.tuned else 'default'} "
          "client/server; generated and built in "
          f"{time.perf_counter() - t:.1f} s")
    cache = work / "judge-cache.sqlite"
    with FakeJudgePool(responder, workers=args.server_workers, latency=args.latency) as server:
        child = [server.base_url, str(work / "hub" / "medrealmm"), str(work / "pred.jsonl"), str(cache),
                 str(args.concurrency), "1" if args.tuned else "0"]
        first = run_child(child)
        ideal = args.concurrency / args.latency
        rate = first["criteria"] / first["seconds"]
        print(f"score:   {first['criteria']:,} criteria in {first['seconds']:.1f} s = {rate:,.0f} calls/s; ideal "
              f"{args.concurrency}/{args.latency:g} s = {ideal:,.0f} calls/s ({100 * rate / ideal:.0f}% of ideal); "
              f"max in flight {server.max_in_flight()}; peak RSS {first['peak_rss_mb']:.0f} MB; stats {first['stats']}")
        calls_before = server.calls()
        second = run_child(child)
        print(f"rescore: {second['seconds']:.2f} s from the cache (goal < 5 s); HTTP calls "
              f"{server.calls() - calls_before}; peak RSS {second['peak_rss_mb']:.0f} MB; stats {second['stats']}")
        assert second["score_pct"] == first["score_pct"] and server.calls() == calls_before
        rescore_table(child, cache, args.repeats)
        assert server.calls() == calls_before
    print(f"score_pct {first['score_pct']} (same on rescore); cache file {cache.stat().st_size / 1e6:.0f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

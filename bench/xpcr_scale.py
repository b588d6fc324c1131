"""X-PCR at the paper's scale: 26,415 images, 177,868 chain items, plus 58 hospital cases.

1. generate a synthetic release in the authors' layout (Parquet rows with `qa_pairs`, tiny 8x8 PNGs
   so the disk stays small; Figure 2's modality image counts and stage proportions), 58 cross-modal
   cases (22/18/14/4 per group, 6 items each) and two full prediction files: `answer` letters with
   confidences (and every ablated run), and free-text `response`s that are unique per item;
2. build it (subprocess: seconds, peak RSS, staged size vs image + text bytes);
3. per prediction file, each phase in its own subprocess: read it with `pyarrow.json.read_json` (the
   baseline), validate it, and score it (key load, validation and `Benchmark.score` timed apart,
   5,000 bootstrap resamples). Prints seconds, ratio to the baseline and peak RSS.

    .venv/bin/python bench/xpcr_scale.py [--workdir /tmp/xpcr-bench] [--images 26415] [--items 177868]
    .venv/bin/python bench/xpcr_scale.py --score-only --workdir DIR     # the score table on a kept run
    .venv/bin/python bench/xpcr_scale.py --build-sizes 300 1200 --image-kb 300   # build vs floor, memory

   --build-sizes: per release size, the build against `Dataset.from_list(rows).to_parquet` of the already
   parsed rows (the floor) and against a fair floor that also reads the source Parquet and hashes every
   image (work any build must do); wall and CPU seconds, medians of --repeats interleaved runs; peak RSS
   of each child, so memory can be compared as the release grows. Target (issue 15): >= 2x at <= 500 MB.

4. whole process: `python -m leaderboard score xpcr FILE` vs a floor script (pyarrow read of the file and
   the key + numpy compare; for free text one vectorised regex), interleaved, medians of `--repeats`.
"""
from __future__ import annotations

import argparse
import io
import json
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

MODALITY_IMAGES = {"CFP": 6840, "OCT": 8199, "FFA": 3356, "ICGA": 3356, "EP": 4064, "RetCam": 600}  # Figure 2(b)
STAGE_VQA = {"IQA": 21200, "AL": 46820, "LC": 35030, "DD": 37600, "SG": 21620, "CD": 13918}  # Figure 2(f)
CATEGORY = {"Image Quality": "IQA", "Anatomical Localization": "AL", "Pathological Features": "LC",
            "Disease Diagnosis": "DD", "Severity Grading": "SG", "Clinical Decision": "CD"}
DISEASES = ["diabetic retinopathy", "glaucoma", "cataract", "age-related macular degeneration",
            "hypertensive retinopathy", "pathological myopia", "retinal vein occlusion", "central serous chorioretinopathy",
            "Vogt-Koyanagi-Harada disease", "retinopathy of prematurity", "polypoidal choroidal vasculopathy", "normal"]
SOURCES = ["12 ODIR-5K", "39 APTOS2019", "7 OCT2017", "31 RetinalOCT", "5 EyePhotos", "18 RetinalROP", "44 Retinal"]
CASE_GROUPS = {1: (22, ["CFP", "OCT"]), 2: (18, ["CFP", "OCT", "FFA"]), 3: (14, ["CFP", "OCT", "FFA", "ICGA"]),
               4: (4, ["CFP", "OCT", "FFA", "EP"])}
LETTERS = "ABCDE"


_PHOTOS: list[bytes] = []


def photo(k: int, kb: int) -> bytes:
    """A noisy JPEG of about `kb` KB (fundus photographs and OCT scans are hundreds of KB); a pool of 16
    distinct ones is cycled so generating a large release stays quick."""
    if not _PHOTOS:
        import numpy as np
        from PIL import Image

        side = 64
        while True:  # noise compresses badly: the file grows with the side
            arr = np.random.default_rng(side).integers(0, 255, (side, side, 3), dtype=np.uint8)
            buffer = io.BytesIO()
            Image.fromarray(arr).save(buffer, format="JPEG", quality=85)
            if buffer.tell() >= kb * 1024:
                break
            side = int(side * 1.15)
        for j in range(16):
            arr = np.random.default_rng(j).integers(0, 255, (side, side, 3), dtype=np.uint8)
            buffer = io.BytesIO()
            Image.fromarray(arr).save(buffer, format="JPEG", quality=85)
            _PHOTOS.append(buffer.getvalue())
    return _PHOTOS[k % len(_PHOTOS)]


def tiny_png(k: int) -> bytes:
    from PIL import Image

    img = Image.new("RGB", (8, 8), (k % 251, (k // 251) % 251, 90))
    buffer = io.BytesIO()
    img.save(buffer, format="PNG")
    return buffer.getvalue()


def plan_stages(rng: random.Random, images: int, items: int) -> list[list[str]]:
    """Stages per image: 85% full six-stage chains, the rest partial; extra items (stage-weighted as
    Figure 2(f)) top the total up to exactly `items`."""
    stages = list(STAGE_VQA)
    plans = [list(stages) if rng.random() < 0.85 else sorted(rng.sample(stages, rng.randint(1, 5)), key=stages.index)
             for _ in range(images)]
    extra = items - sum(len(p) for p in plans)
    if extra < 0:
        raise SystemExit("too few items for the images")
    weights = [STAGE_VQA[s] for s in stages]
    for stage in rng.choices(stages, weights=weights, k=extra):
        plans[rng.randrange(images)].append(stage)
    return [sorted(p, key=stages.index) for p in plans]


def make_release(folder: Path, images: int, items: int, seed: int = 0, image_kb: int = 0) -> dict:
    import pyarrow as pa
    import pyarrow.parquet as pq

    sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "benchmarks" / "xpcr")]
    from xpcr_release import SCHEMA  # the authors' row schema, as the tests write it

    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    plans = plan_stages(rng, images, items)
    stage_names = {v: k for k, v in CATEGORY.items()}
    scale = images / sum(MODALITY_IMAGES.values())
    modalities = [m for m, n in MODALITY_IMAGES.items() for _ in range(round(n * scale))][:images]
    modalities += ["CFP"] * (images - len(modalities))
    answers: list[tuple[str, str, int]] = []  # (item id, gold letter, option count)
    totals = {"image_bytes": 0, "text_bytes": 0}
    writers: dict[str, pq.ParquetWriter] = {}
    batch: dict[str, list] = {}

    def flush(modality: str) -> None:
        if batch.get(modality):
            if modality not in writers:
                writers[modality] = pq.ParquetWriter(folder / "data" / f"{modality.lower()}-00000.parquet", SCHEMA)
            writers[modality].write_table(pa.Table.from_pylist(batch[modality], schema=SCHEMA))
            batch[modality] = []

    (folder / "data").mkdir(exist_ok=True)
    for k, (plan, modality) in enumerate(zip(plans, modalities)):
        image_id = f"{modality.lower()}_{k:06d}"
        qa_pairs = []
        for j, stage in enumerate(plan, start=1):
            n = rng.choice((2, 4, 4, 4, 4, 5))
            options = [f"{stage.lower()} finding {o} variant {rng.randrange(40)}" for o in range(n)]
            gold = rng.randrange(n)
            question = f"For this {modality} image, which {stage_names[stage].lower()} statement is correct?"
            qa_pairs.append({"category": stage_names[stage], "question": f"{question}\nOptions: {options!r}",
                             "answer": options[gold], "sub_label": f"{stage} template {rng.randrange(10)}",
                             "question_type": "single_choice", "tier": rng.choice("RAS") if k % 2 else None})
            answers.append((f"{image_id}-{j}", LETTERS[gold], n))
        png = photo(k, image_kb) if image_kb else tiny_png(k)
        row = {"id": image_id, "modality": modality, "image": {"bytes": png, "path": f"{image_id}.png"},
               "image_path": f"{modality}/{rng.choice(SOURCES)}/{image_id}.png", "disease": rng.choice(DISEASES),
               "qa_pairs": qa_pairs}
        totals["image_bytes"] += len(png)
        totals["text_bytes"] += sum(len(str(v).encode()) for q in qa_pairs for v in q.values() if v) + \
            len(row["id"]) + len(row["image_path"]) + len(row["disease"]) + len(modality)
        batch.setdefault(modality, []).append(row)
        if len(batch[modality]) >= (1000 if not image_kb else 50):  # large images: small batches
            flush(modality)
    for modality in list(batch):
        flush(modality)
    for writer in writers.values():
        writer.close()
    cross = make_cases(folder / "cross_modal", rng, totals)
    return {"answers": answers, "cross": cross, **totals}


def make_cases(folder: Path, rng: random.Random, totals: dict) -> list[tuple[str, str, int, list[str]]]:
    (folder / "images").mkdir(parents=True, exist_ok=True)
    out, lines, n = [], [], 0
    for group, (count, mods) in CASE_GROUPS.items():
        for c in range(count):
            case_id = f"case_{n:03d}"
            n += 1
            images = []
            for k, m in enumerate(mods):
                png = tiny_png(100_000 + n * 10 + k)
                (folder / "images" / f"{case_id}_{k}.png").write_bytes(png)
                totals["image_bytes"] += len(png)
                images.append({"path": f"images/{case_id}_{k}.png", "modality": m})
            items = []
            for j in range(1, 7):
                options = [f"cross-modal option {o}" for o in range(4)]
                gold = rng.randrange(4)
                items.append({"question": f"Case question {j}?\nOptions: {options!r}", "answer": options[gold],
                              "task_family": rng.choice(["Correspondence Identification", "Diagnostic Integration",
                                                         "Modality Selection"])})
                out.append((f"{case_id}-{j}", LETTERS[gold], 4, mods))
            lines.append(json.dumps({"case_id": case_id, "case_group": group, "images": images, "items": items}))
    (folder / "cases.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    totals["text_bytes"] += sum(len(line) for line in lines)
    return out


def make_predictions(work: Path, release: dict, seed: int = 1) -> dict[str, Path]:
    """`letters.jsonl`: answer + confidence for every item and every ablated run; `responses.jsonl`:
    a unique free-text response per item (the slow, per-text parsing path)."""
    rng = random.Random(seed)
    letters, responses = work / "letters.jsonl", work / "responses.jsonl"

    def pick(gold: str, n: int, p: float) -> str:
        return gold if rng.random() < p else LETTERS[(LETTERS.index(gold) + 1) % n]

    with letters.open("w", encoding="utf-8") as a, responses.open("w", encoding="utf-8") as r:
        for k, (item_id, gold, n) in enumerate(release["answers"]):
            letter = pick(gold, n, 0.7)
            conf = round(rng.uniform(0.5, 1.0) if letter == gold else rng.uniform(0.1, 0.9), 3)
            a.write(json.dumps({"id": item_id, "answer": letter, "confidence": conf}) + "\n")
            r.write(json.dumps({"id": item_id, "response": f"Finding {k} on this image points to option ({letter}), "
                                                          f"given the pattern.", "confidence": conf}) + "\n")
        for item_id, gold, n, mods in release["cross"]:
            a.write(json.dumps({"id": item_id, "answer": pick(gold, n, 0.5), "confidence": 0.6}) + "\n")
            r.write(json.dumps({"id": item_id, "response": f"Answer: {pick(gold, n, 0.5)}"}) + "\n")
            for m in mods:
                a.write(json.dumps({"id": f"{item_id}/without-{m}", "answer": pick(gold, n, 0.45),
                                    "removed_modality": m}) + "\n")
    return {"letters": letters, "responses": responses}


def phase(name: str, data: Path, pred: Path) -> dict:
    """One phase; `seconds` excludes module imports (reported as `import_s`)."""
    timings: dict[str, float] = {}
    t_import = time.perf_counter()
    import pyarrow.json as pa_json

    if name != "read":
        from leaderboard.scoring import registry
        from leaderboard.scoring.benchmark import ScoringContext
        from leaderboard.scoring.score_file import load_key, validate_file
    start = time.perf_counter()
    timings["import_s"] = start - t_import
    if name == "read":
        count = pa_json.read_json(pred).num_rows
    elif name == "validate":
        report, _ = validate_file("xpcr", pred, data)
        count = report.n_valid
        timings["errors"] = len(report.errors)
    elif name == "score":
        bench = registry.scorer("xpcr")
        t0 = time.perf_counter()
        key = load_key(bench, data)
        t1 = time.perf_counter()
        report, _ = validate_file("xpcr", pred, data, key=key)
        t2 = time.perf_counter()
        result = bench.score(key, report, ScoringContext())
        t3 = time.perf_counter()
        from benchmarks.xpcr import alignment

        alignment._LAST_KEY.clear()  # again, with the per-key index rebuilt (what a first submission pays)
        bench.score(key, report, ScoringContext())
        t4 = time.perf_counter()
        timings.update(key_s=t1 - t0, validate_s=t2 - t1, score_only_s=t3 - t2, score_cold_s=t4 - t3,
                       swa=result.metrics["SWA_Avg"])
        count = result.n_answered
    else:
        raise SystemExit(f"unknown phase {name}")
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "items": count, "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            **timings}


def run_phase(name: str, data: Path, pred: Path) -> dict:
    out = subprocess.run([sys.executable, __file__, "--phase", name, "--data", str(data), "--pred", str(pred)],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


CPU = "def cpu(): r = resource.getrusage(resource.RUSAGE_SELF); return r.ru_utime + r.ru_stime\n"


def build_phase(source: Path, out: Path) -> dict:
    """The project's build in a child: wall and CPU seconds of `build` (imports excluded), peak RSS."""
    code = ("import json,resource,sys,time; sys.path.insert(0, %r); from pathlib import Path\n" + CPU +
            "from leaderboard.scoring import registry; from dataset_builders.stage import build\n"
            "t=time.perf_counter(); c=cpu(); r=build(registry.adapter('xpcr'), Path(%r), Path(%r), progress=False)\n"
            "print(json.dumps({'seconds': time.perf_counter()-t, 'cpu': cpu()-c, 'rows': r.rows, "
            "'peak_mb': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))") % (str(ROOT), str(source), str(out))
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if run.returncode:
        raise SystemExit(run.stderr[-3000:])
    return json.loads(run.stdout.strip().splitlines()[-1])


FLOOR = """
import sys
from pathlib import Path
import numpy as np, pyarrow as pa, pyarrow.compute as pc, pyarrow.json as pj, pyarrow.parquet as pq
pred, data, kind = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
key = pa.concat_tables([pq.ParquetFile(p).read(columns=["id", "answer"]) for p in sorted((data / "items").rglob("*.parquet"))])
table = pj.read_json(pred)
taken = table.take(pc.index_in(key.column("id"), value_set=table.column("id")))
if kind == "letters":
    letters = taken.column("answer")
else:  # one vectorised regex: the letter in "(B)"
    letters = pc.extract_regex(taken.column("response").combine_chunks(), r"\\((?P<l>[A-E])\\)").field("l")
print(float(np.mean(pc.fill_null(pc.equal(letters, key.column("answer")), False).to_numpy(zero_copy_only=False))))
"""


def score_table(folder: Path, preds: dict[str, Path], repeats: int) -> None:
    """Whole-process wall time of `python -m leaderboard score xpcr FILE` against the floor (a script that
    reads the same file and the key's answers with pyarrow and compares them with numpy; for free text
    with one vectorised regex), interleaved, medians."""
    from bytecode import compile_project

    compile_project()  # as installed copies have it (see bench/bytecode.py)
    import statistics

    def wall(command: list[str]) -> float:
        start = time.perf_counter()
        subprocess.run(command, capture_output=True, check=True, cwd=ROOT)
        return time.perf_counter() - start

    print(f"\n{'file':>10} {'project s':>9} {'floor s':>8} {'ratio':>6}  (whole process, medians of {repeats} "
          "interleaved runs; project = python -m leaderboard score xpcr FILE --quiet, 5,000 resamples)")
    for label, pred in preds.items():
        kind = "letters" if label == "letters" else "responses"
        project, floor = [], []
        for _ in range(repeats):
            floor.append(wall([sys.executable, "-c", FLOOR, str(pred), str(folder), kind]))
            project.append(wall([sys.executable, "-m", "leaderboard", "score", "xpcr", str(pred), "--data",
                                 str(folder), "--quiet"]))
        p, f = statistics.median(project), statistics.median(floor)
        print(f"{label:>10} {p:>9.2f} {f:>8.2f} {p / f:>6.2f}")


FLOOR_BUILD = """
import json, resource, sys, time, hashlib
from pathlib import Path
sys.path.insert(0, ROOT)
CPU_DEF
import datasets, pyarrow.parquet as pq
from leaderboard.scoring import registry
from dataset_builders.errors import ProblemLog
from dataset_builders.parquet_writer import plain_bytes
a = registry.adapter("xpcr"); specs = {c.name: c for c in a.configs()}; rows = {}
source, out, fair = Path(SOURCE), Path(OUT), FAIR
for c, r in a.read(source, ProblemLog()):  # the parsed rows, not timed
    rows.setdefault(c, []).append({k: plain_bytes(r[k]) for k in specs[c].features})
out.mkdir(parents=True, exist_ok=True)
t, c0 = time.perf_counter(), cpu()
if fair:  # the work no build can skip: read the source Parquet, hash every image
    for path in sorted(p for p in source.rglob("*.parquet")):
        for batch in pq.ParquetFile(path).iter_batches(batch_size=32):
            for image in batch.column("image").field("bytes").to_pylist():
                hashlib.sha256(image).hexdigest()
for c, rs in rows.items():
    datasets.Dataset.from_list(rs, features=specs[c].features).to_parquet(str(out / (c + ".parquet")))
print(json.dumps({"seconds": time.perf_counter() - t, "cpu": cpu() - c0, "rows": {c: len(r) for c, r in rows.items()},
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def build_floor_phase(source: Path, out: Path, fair: bool = False) -> dict:
    """The floor of a build: the same rows the adapter yields, already parsed and held in a list (not
    timed), written per config with `datasets.Dataset.from_list(rows, features).to_parquet`. With `fair`,
    also the work the build cannot skip and the floor otherwise leaves out: reading the source Parquet
    (images included) and hashing every image."""
    code = (FLOOR_BUILD.replace("ROOT", repr(str(ROOT))).replace("CPU_DEF", CPU).replace("SOURCE", repr(str(source)))
            .replace("OUT", repr(str(out))).replace("FAIR", repr(fair)))
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if run.returncode:
        raise SystemExit(run.stderr[-3000:])
    return json.loads(run.stdout.strip().splitlines()[-1])


def build_table(workdir: Path, images: list[int], items_per_image: float, image_kb: int, repeats: int) -> None:
    """Build vs floor and vs the fair floor (interleaved, medians of wall and CPU seconds), and peak memory
    as the release grows."""
    import os
    import shutil
    import statistics

    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}; {os.cpu_count()} cores; medians of {repeats} "
          "interleaved runs; floor = Dataset.from_list + to_parquet of the parsed rows (parsing not timed); fair floor "
          "= the same + reading the source Parquet and hashing every image (work the build cannot skip); "
          "speed = floor seconds / build seconds")
    print(f"{'images':>7} {'items':>8} {'KB':>4} {'build s':>8} {'floor s':>8} {'fair s':>7} {'speed':>6} {'fair':>5} "
          f"{'cpu b':>6} {'cpu f':>6} {'cpu ff':>6} {'speed':>6} {'fair':>5} {'build MB':>8} {'floor MB':>8}")
    peaks = []
    for n in images:
        work = workdir / f"build-{n}"
        shutil.rmtree(work, ignore_errors=True)
        make_release(work / "raw", n, int(n * items_per_image), image_kb=image_kb)
        runs = {"build": [], "floor": [], "fair": []}
        for _ in range(repeats):
            shutil.rmtree(work / "hub", ignore_errors=True)
            runs["build"].append(build_phase(work / "raw", work / "hub"))
            shutil.rmtree(work / "floor", ignore_errors=True)
            runs["floor"].append(build_floor_phase(work / "raw", work / "floor"))
            shutil.rmtree(work / "floor", ignore_errors=True)
            runs["fair"].append(build_floor_phase(work / "raw", work / "floor", fair=True))
        med = {k: {f: statistics.median(r[f] for r in rs) for f in ("seconds", "cpu")} for k, rs in runs.items()}
        b, f, ff = med["build"], med["floor"], med["fair"]
        peak_b = max(r["peak_mb"] for r in runs["build"])
        peak_f = max(r["peak_mb"] for r in runs["floor"])
        peaks.append((n, peak_b, peak_f))
        print(f"{n:>7} {sum(runs['build'][0]['rows'].values()):>8} {image_kb or 0.1:>4} {b['seconds']:>8.2f} "
              f"{f['seconds']:>8.2f} {ff['seconds']:>7.2f} {f['seconds'] / b['seconds']:>5.2f}x {ff['seconds'] / b['seconds']:>4.2f}x "
              f"{b['cpu']:>6.2f} {f['cpu']:>6.2f} {ff['cpu']:>6.2f} {f['cpu'] / b['cpu']:>5.2f}x {ff['cpu'] / b['cpu']:>4.2f}x "
              f"{peak_b:>8.0f} {peak_f:>8.0f}")
        speed = f["seconds"] / b["seconds"]
        print(f"{n:>7} images: build {speed:.2f}x the floor's speed (fair floor {ff['seconds'] / b['seconds']:.2f}x), "
              f"peak {peak_b:.0f} MB: target >= 2x at <= 500 MB {'met' if speed >= 2 and peak_b <= 500 else 'not met'}"
              f" (against the fair floor: {'met' if ff['seconds'] / b['seconds'] >= 2 and peak_b <= 500 else 'not met'})")
        shutil.rmtree(work, ignore_errors=True)
    if len(peaks) >= 2:
        (n0, b0, f0), (n1, b1, f1) = peaks[0], peaks[-1]
        print(f"peak memory {n0} -> {n1} images: build {b0:.0f} -> {b1:.0f} MB ({b1 - b0:+.0f}), floor {f0:.0f} -> "
              f"{f1:.0f} MB ({f1 - f0:+.0f})")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/xpcr-bench"))
    parser.add_argument("--images", type=int, default=26_415)
    parser.add_argument("--items", type=int, default=177_868)
    parser.add_argument("--phase")
    parser.add_argument("--data", type=Path)
    parser.add_argument("--pred", type=Path)
    parser.add_argument("--build-sizes", type=int, nargs="*", default=[],
                        help="also: build vs floor and peak memory for releases of these image counts")
    parser.add_argument("--image-kb", type=int, default=300, help="image size for --build-sizes")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--score-only", action="store_true", help="reuse --workdir: only the score table")
    args = parser.parse_args()
    if args.score_only:  # a kept --workdir: only the whole-process score table
        score_table(args.workdir / "hub" / "xpcr", {"letters": args.workdir / "letters.jsonl",
                                                     "responses": args.workdir / "responses.jsonl"}, args.repeats)
        return 0
    if args.build_sizes:
        build_table(args.workdir, args.build_sizes, args.items / args.images, args.image_kb, args.repeats)
        return 0
    if args.phase:
        print(json.dumps(phase(args.phase, args.data, args.pred)))
        return 0
    import shutil

    shutil.rmtree(args.workdir, ignore_errors=True)
    t = time.perf_counter()
    release = make_release(args.workdir / "raw", args.images, args.items)
    preds = make_predictions(args.workdir, release)
    print(f"generated {args.images:,} images, {len(release['answers']):,} chain items, {len(release['cross'])} "
          f"cross-modal items in {time.perf_counter() - t:.1f} s")
    built = build_phase(args.workdir / "raw", args.workdir / "hub")
    folder = args.workdir / "hub" / "xpcr"
    staged = sum(p.stat().st_size for p in folder.rglob("*.parquet"))
    payload = release["image_bytes"] + release["text_bytes"]
    print(f"build: {built['seconds']:.1f} s, peak RSS {built['peak_mb']:.0f} MB, rows {built['rows']}")
    print(f"staged Parquet {staged / 1e6:.1f} MB vs images {release['image_bytes'] / 1e6:.1f} MB + text "
          f"{release['text_bytes'] / 1e6:.1f} MB = {payload / 1e6:.1f} MB (ratio {staged / payload:.3f})")
    print(f"\n{'file':>10} {'phase':>9} {'seconds':>8} {'x read':>7} {'peak MB':>8}  detail (seconds exclude imports)")
    for label, pred in preds.items():
        size = pred.stat().st_size / 1e6
        rows = {name: run_phase(name, folder, pred) for name in ("read", "validate", "score")}
        base = rows["read"]["seconds"]
        for name, r in rows.items():
            detail = f"(+{r['import_s']:.2f} s imports) "
            if name == "read":
                detail += f"{r['items']:,} rows, {size:.1f} MB"
            elif name == "validate":
                detail += f"{r['items']:,} valid, {r['errors']} errors"
            else:
                detail += (f"key {r['key_s']:.2f} s, validate {r['validate_s']:.2f} s, Benchmark.score {r['score_only_s']:.2f} s "
                           f"(x read {r['score_only_s'] / base:.1f}; {r['score_cold_s']:.2f} s = x {r['score_cold_s'] / base:.1f} "
                           f"with the key index rebuilt); SWA_Avg {r['swa']:.2f}")
            print(f"{label:>10} {name:>9} {r['seconds']:>8.2f} {r['seconds'] / base:>7.1f} {r['peak_mb']:>8.0f}  {detail}")
    score_table(folder, preds, args.repeats)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

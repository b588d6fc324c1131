"""`python -m leaderboard from-lmms-eval LOG_DIR --benchmark NAME --out PRED.jsonl`: an lmms-eval
`--log_samples` folder -> a prediction file `validate`/`score` and the Space accept, plus the run-settings
sidecar `PRED.jsonl.meta.json` (the same shape `predict` writes; endpoints are never copied).

Our task folders (`benchmarks/<name>/lmms_eval_task/`) log, for every sample, the prediction lines and the
protocol settings under `hub_prediction` (see `lmms_eval_bridge`); this module only collects them, so it
knows nothing about any benchmark. Several runs of one model are combined (e.g. the single-turn tasks from
`python -m lmms_eval` and the multi-round ones from `python -m leaderboard.harness.lmms_eval_multiround`); when a task
was run more than once, `--run` names the runs to take (each file is prefixed with its run's date id).
"""
from __future__ import annotations

import json
import os
import re2
import sys
from dataclasses import dataclass, field
from pathlib import Path

from .lmms_eval_bridge import RECORD_KEY

SAMPLES = re2.compile(r"^(?P<run>.+?)_samples_(?P<task>.+)\.jsonl$")
FAILED_PREFIX = "[LMMS_EVAL_"  # lmms-eval writes "[LMMS_EVAL_REQUEST_FAILED after N retries] ..." as the reply


class ImportProblem(ValueError):
    """Something the user must fix; printed without a traceback."""


@dataclass
class Imported:
    rows: list[dict] = field(default_factory=list)
    tasks: dict[str, int] = field(default_factory=dict)  # lmms-eval task -> samples read
    failed: list[str] = field(default_factory=list)  # sample keys left out (failed requests)
    protocol: dict | None = None
    run: str = ""
    results: dict = field(default_factory=dict)  # the run's <run>_results.json (may be empty)
    harness_version: str | None = None


def _has_failure(value) -> bool:
    if isinstance(value, str):
        return value.lstrip().startswith(FAILED_PREFIX)
    if isinstance(value, list):
        return any(_has_failure(v) for v in value)
    if isinstance(value, dict):
        return any(_has_failure(v) for v in value.values())
    return False


def _runs(log_dirs: list[Path], benchmark: str, tasks: set[str] | None) -> dict[tuple[Path, str], list]:
    """(folder, run id) -> [(task, file, records)] for every samples file holding lines of `benchmark`."""
    found: dict[tuple[Path, str], list] = {}
    for path in sorted({p for d in log_dirs for p in d.rglob("*_samples_*.jsonl")}):
        match = SAMPLES.match(path.name)
        if not match or (tasks and match["task"] not in tasks):
            continue
        records = []
        with path.open(encoding="utf-8", errors="surrogateescape") as handle:  # bad bytes: refused per line
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    sample = json.loads(line.encode("utf-8", "surrogateescape").decode("utf-8"))
                except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
                    raise ImportProblem(f"{path} line {number}: not valid JSON (a torn file? re-run lmms-eval)") from None
                record = sample.get(RECORD_KEY) if isinstance(sample, dict) else None
                if record is None:
                    if records:
                        raise ImportProblem(f"{path} line {number}: no `{RECORD_KEY}` field although earlier lines have it")
                    break  # another task's samples (not one of ours)
                if not isinstance(record, dict) or not isinstance(record.get("rows"), list):
                    raise ImportProblem(f"{path} line {number}: `{RECORD_KEY}` is not a record written by our task folders")
                if record.get("benchmark") != benchmark:
                    break
                records.append({**record, "_where": f"{path.name} line {number}", "_doc_id": sample.get("doc_id")})
        if records:
            found.setdefault((path.parent, match["run"]), []).append((match["task"], path, records))
    return found


def _by_date(key: tuple[Path, str]) -> tuple[str, str]:
    return key[1], str(key[0])  # run ids are date ids: oldest first


def _chosen(runs: dict, benchmark: str, wanted: set[str] | None) -> list[tuple[Path, str]]:
    """The runs to combine: those named by --run, else all of them when no task appears in two runs (e.g. the
    single-turn tasks from `python -m lmms_eval` and the multi-round ones from our wrapper)."""
    if wanted:
        missing = wanted - {run for _, run in runs}
        if missing:
            raise ImportProblem(f"no run {', '.join(sorted(missing))} of {benchmark} (found: "
                                f"{', '.join(sorted({r for _, r in runs}))})")
        return sorted((key for key in runs if key[1] in wanted), key=_by_date)
    by_task: dict[str, list[str]] = {}
    for (_, run), files in runs.items():
        for task, _, _ in files:
            by_task.setdefault(task, []).append(run)
    repeated = {task: found for task, found in by_task.items() if len(found) > 1}
    if repeated:
        task, found = sorted(repeated.items())[0]
        raise ImportProblem(f"task {task} was run {len(found)} times ({', '.join(sorted(found))}); pick the runs with "
                            "--run (comma-separated date ids, the samples files' prefix)")
    return sorted(runs, key=_by_date)


def _results(folder: Path, run: str) -> dict:
    path = folder / f"{run}_results.json"
    try:
        return _shaped(json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {})
    except (ValueError, RecursionError):
        return {}


def _shaped(data) -> dict:
    """The results file with `config` an object and `configs`/`results` objects of objects; parts of another
    shape are dropped (found by bench/fuzz_lmms_eval_import.py: a list there crashed the import)."""
    if not isinstance(data, dict):
        return {}
    shaped = dict(data, config=data.get("config") if isinstance(data.get("config"), dict) else {})
    for key in ("configs", "results"):
        value = data.get(key)
        shaped[key] = {str(k): dict(v) for k, v in value.items() if isinstance(v, dict)} if isinstance(value, dict) else {}
    for config in shaped["configs"].values():
        if not isinstance(config.get("generation_kwargs"), dict):
            config.pop("generation_kwargs", None)
    return shaped


def collect(log_dirs, benchmark: str, run: str | None = None, tasks: set[str] | None = None) -> Imported:
    log_dirs = [Path(d) for d in ([log_dirs] if isinstance(log_dirs, (str, Path)) else log_dirs)]
    for log_dir in log_dirs:
        if not log_dir.is_dir():
            raise ImportProblem(f"{log_dir} is not a folder; give the --output_path folder of an lmms-eval run "
                                "with --log_samples")
    runs = _runs(log_dirs, benchmark, tasks)
    if not runs:
        raise ImportProblem(f"no samples of {benchmark} in {', '.join(map(str, log_dirs))}: run lmms-eval with "
                            f"--log_samples and our task folder (--include_path benchmarks/{benchmark}/lmms_eval_task)")
    chosen = _chosen(runs, benchmark, {r.strip() for r in run.split(",") if r.strip()} if run else None)
    imported = Imported(run=",".join(r for _, r in chosen))
    seen: dict[str, str] = {}
    for key in chosen:
        results = _results(*key)
        model = _model(results.get("config") or {})
        if imported.results and model != _model(imported.results.get("config") or {}):
            raise ImportProblem(f"runs {imported.run} are of different models; convert them one by one")
        if not imported.results:
            imported.results = {**results, "configs": dict(results.get("configs") or {}),
                                "results": dict(results.get("results") or {})}
        else:
            imported.results["configs"].update(results.get("configs") or {})
            imported.results["results"].update(results.get("results") or {})
        for task, path, records in runs[key]:
            imported.tasks[task] = len(records)
            for record in records:
                protocol = record.get("protocol") or {}
                if not isinstance(protocol, dict):
                    raise ImportProblem(f"{record['_where']}: `protocol` is not an object")
                if imported.protocol is None:
                    imported.protocol = protocol
                    imported.harness_version = record.get("lmms_eval")
                elif protocol != imported.protocol:
                    raise ImportProblem(f"{record['_where']}: written with different protocol settings than the other "
                                        "samples (e.g. a multimodal and a text-only variant in one run); convert each "
                                        "variant to its own file with --tasks")
                if _has_failure(record["rows"]):
                    imported.failed.append(f"{task} doc {record['_doc_id']}")
                    continue
                for row in record["rows"]:
                    item_id = row.get("id") if isinstance(row, dict) else None
                    if not isinstance(item_id, str):
                        raise ImportProblem(f"{record['_where']}: a prediction line without a string `id`")
                    if item_id in seen:
                        raise ImportProblem(f"{record['_where']}: id {item_id!r} already came from {seen[item_id]}")
                    seen[item_id] = record["_where"]
                    imported.rows.append(row)
    return imported


def _model(config: dict) -> str | None:
    """The model id from lmms-eval's model_args ('model=...,base_url=...'): never the endpoint."""
    args = config.get("model_args") or ""
    pairs = dict(part.split("=", 1) for part in str(args).split(",") if "=" in part)
    return pairs.get("model") or pairs.get("model_version") or pairs.get("pretrained")


def _request(results: dict, tasks: list[str]) -> dict:
    """What lmms-eval sent: the tasks' generation_kwargs with the run's --gen_kwargs on top."""
    overrides = dict(part.split("=", 1) for part in str((results.get("config") or {}).get("gen_kwargs") or "").split(",")
                     if "=" in part)
    per_task = {}
    for task in tasks:
        kwargs = dict(((results.get("configs") or {}).get(task) or {}).get("generation_kwargs") or {})
        kwargs.update(overrides)
        sent = {"temperature": kwargs.get("temperature", 0), "max_tokens": kwargs.get("max_new_tokens", 1024)}
        if kwargs.get("top_p") is not None:
            sent["top_p"] = kwargs["top_p"]
        per_task[task] = {k: _number(v) for k, v in sent.items()}
    values = list(per_task.values())
    request = dict(values[0]) if values and all(v == values[0] for v in values) else {}
    return {**request, "per_task": per_task}


def _number(value):
    if isinstance(value, str):
        try:
            return float(value) if "." in value else int(value)
        except ValueError:
            return value
    return value


def settings(benchmark: str, imported: Imported) -> dict:
    results = imported.results
    config = results.get("config") or {}
    tasks = sorted(imported.tasks)
    data = sorted({str(((results.get("configs") or {}).get(t) or {}).get("dataset_path")) for t in tasks
                   if ((results.get("configs") or {}).get(t) or {}).get("dataset_path")})
    return {
        "benchmark": benchmark,
        "model": _model(config) or "unknown",
        "data": ", ".join(data),
        "harness": {"name": "lmms-eval", "version": imported.harness_version, "run": imported.run,
                    "tasks": tasks, "model_backend": config.get("model"),
                    "differences": ["images re-encoded by lmms-eval (PNG unless LMMS_IMAGE_ENCODE_FORMAT; same pixels, "
                                    "not the original bytes), no image detail field",
                                    "max_tokens and temperature always sent (see request)"]},
        "protocol": {**(imported.protocol or {}), "runner": "lmms-eval"},
        "request": _request(results, tasks),
        "strip_think": True,
        "row_fields": {},
    }


def write(out: Path, rows: list[dict], meta: dict) -> None:
    """Prediction lines and the sidecar, each via a temporary file + rename."""
    out.parent.mkdir(parents=True, exist_ok=True)
    for path, text in ((out, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)),
                       (out.with_name(out.name + ".meta.json"), json.dumps(meta, indent=2, ensure_ascii=False) + "\n")):
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)


def previews(results: dict, tasks: list[str]) -> list[str]:
    """lmms-eval's own aggregates of our `preview_*` metrics, as lines to print (never the official score)."""
    lines = []
    for task in tasks:
        for key, value in sorted(((results.get("results") or {}).get(task) or {}).items()):
            if key.startswith("preview_") and "stderr" not in key and isinstance(value, (int, float)):
                lines.append(f"  {task} {key.split(',')[0]} = {value:.2f}")
    return lines


def _parser():
    import argparse

    parser = argparse.ArgumentParser(prog="python -m leaderboard from-lmms-eval",
                                     description="Turn an lmms-eval --log_samples folder into a prediction file + run settings.")
    parser.add_argument("log_dir", type=Path, nargs="+",
                        help="lmms-eval's --output_path folder(s), searched recursively")
    parser.add_argument("--benchmark", required=True, help="which benchmark's samples to collect")
    parser.add_argument("--out", type=Path, required=True, help="prediction file (JSONL); settings go to OUT.meta.json")
    parser.add_argument("--tasks", help="only these lmms-eval tasks (comma-separated), e.g. one variant of a benchmark")
    parser.add_argument("--run", help="the runs' date ids (the samples files' prefix, comma-separated) when a task "
                                      "was run more than once")
    parser.add_argument("--overwrite", action="store_true", help="replace OUT and its settings")
    return parser


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    out: Path = args.out
    if out.exists() and not args.overwrite:
        print(f"error: {out} exists; pass --overwrite to replace it", file=sys.stderr)
        return 2
    try:
        tasks = {t.strip() for t in args.tasks.split(",") if t.strip()} if args.tasks else None
        imported = collect(args.log_dir, args.benchmark, args.run, tasks)
    except ImportProblem as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    meta = settings(args.benchmark, imported)
    config = imported.results.get("config") or {}
    meta["runs"] = [{
        "run_id": imported.run, "seconds": imported.results.get("total_evaluation_time_seconds"),
        "limit": config.get("limit"), "tasks_total": sum(imported.tasks.values()),
        "tasks_done": sum(imported.tasks.values()) - len(imported.failed), "rows_written": len(imported.rows),
        "tasks_failed": len(imported.failed), "failures": [{"task": f, "error": "request failed in lmms-eval"}
                                                           for f in imported.failed[:1000]],
    }]
    write(out, imported.rows, meta)
    print(f"{len(imported.rows)} prediction lines from {sum(imported.tasks.values())} lmms-eval samples "
          f"({', '.join(f'{t}: {n}' for t, n in sorted(imported.tasks.items()))}), run {imported.run}")
    if imported.failed:
        print(f"{len(imported.failed)} samples left out: lmms-eval's request failed ({', '.join(imported.failed[:5])}"
              f"{', ...' if len(imported.failed) > 5 else ''}); they count as missing when scored")
    lines = previews(imported.results, sorted(imported.tasks))
    if lines:
        print("lmms-eval quick preview (plain mean x100 of the answered items; no CIs, strata or protocol checks; "
              "not the official score):")
        print("\n".join(lines))
    print(f"predictions: {out}\nrun settings: {out.with_name(out.name + '.meta.json')}\n"
          f"official score: python -m leaderboard score {args.benchmark} {out} --data <the built dataset>")
    return 1 if imported.failed else 0

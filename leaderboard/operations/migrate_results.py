"""`python -m leaderboard migrate-results --store DIR`: a store of one JSON per result (before the shards)
becomes result shards, numbers identical.

Per benchmark: every `results/<benchmark>/*.json` record goes into one compacted shard, with `stored_at` the
file's modification time (so a later rescore still wins). Before any JSON is removed, the shard is read back
and every record compared with its JSON (a metric the JSON lacks reads back as null: the only allowed
difference); on any mismatch nothing is removed and the command fails naming the record and field. The
`.npy` bootstrap resamples and the per-item scores stay where they are (private/). With `--keep-json` the JSON
files stay beside the shards (readers ignore them).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from datetime import datetime, timezone
from pathlib import Path

from ..publishing import result_shards as shards


class MigrationError(Exception):
    pass


def legacy_records(folder: Path) -> list[tuple[Path, dict]]:
    out = []
    for path in sorted(folder.glob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise MigrationError(f"{path}: not readable JSON ({type(exc).__name__}); nothing was changed") from None
        if not isinstance(data, dict) or "metrics" not in data:
            continue
        data.setdefault("submission_id", path.name[:-len(".json")])
        stamp = datetime.fromtimestamp(path.stat().st_mtime, timezone.utc).isoformat(timespec="microseconds")
        out.append((path, {**data, "stored_at": stamp}))
    return out


def differences(original: dict, back: dict) -> list[str]:
    """Fields where the shard's record differs from the JSON (a metric absent from the JSON may read as null)."""
    wanted = {k: v for k, v in original.items() if k != "stored_at"}
    got = dict(back)
    got["metrics"] = {k: v for k, v in got["metrics"].items() if k in wanted.get("metrics", {}) or v is not None}
    return sorted(k for k in set(wanted) | set(got) if wanted.get(k) != got.get(k))


def migrate(store, keep_json: bool = False, log=print) -> dict[str, int]:
    """Converts every benchmark folder of `store` (a LocalStore); returns benchmark -> records migrated."""
    done: dict[str, int] = {}
    results = store.root / "results"
    for folder in sorted(p for p in results.iterdir() if p.is_dir()) if results.is_dir() else []:
        found = legacy_records(folder)
        if not found:
            continue
        benchmark = folder.name
        bad = [str(p) for p, r in found if r.get("benchmark") != benchmark]
        if bad:
            raise MigrationError(f"{bad[0]}: a record of another benchmark in {folder}; nothing was changed")
        records = [r for _, r in found]
        try:
            table = shards.records_table(records, benchmark)
        except shards.ShardError as exc:
            raise MigrationError(f"{exc}; nothing was changed in {folder}") from None
        for index, (path, original) in enumerate(found):
            wrong = differences(original, shards.record(table, index))
            if wrong:
                raise MigrationError(f"{path}: field(s) {', '.join(wrong)} would change; nothing was changed")
        written = store.write_records(benchmark, records)
        check = shards.read_folder(shards.shard_folder(store.root, benchmark))
        ids = set(check.column("submission_id").to_pylist()) if check is not None else set()
        missing = [r["submission_id"] for r in records if r["submission_id"] not in ids]
        if missing:
            raise MigrationError(f"{written}: {len(missing)} record(s) not readable back (first {missing[0]}); "
                                 "the JSON files were kept")
        if not keep_json:
            for path, _ in found:
                os.unlink(path)
        done[benchmark] = len(records)
        log(f"{benchmark}: {len(records)} result(s) -> {written.relative_to(store.root)}"
            + ("" if keep_json else " (JSON files removed)"))
    return done


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m leaderboard migrate-results",
                                     description="convert a results store of JSON records into result shards")
    parser.add_argument("--store", type=Path, required=True, help="the store folder (LEADERBOARD_STORE)")
    parser.add_argument("--keep-json", action="store_true", help="leave the JSON records in place")
    args = parser.parse_args(argv)
    from .store import LocalStore

    if not (args.store / "results").is_dir():
        print(f"error: {args.store} has no results/ folder", file=sys.stderr)
        return 2
    try:
        done = migrate(LocalStore(args.store), keep_json=args.keep_json)
    except MigrationError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"migrated {sum(done.values())} result(s) in {len(done)} benchmark(s)" if done else "nothing to migrate")
    return 0

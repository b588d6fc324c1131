"""Submissions held for a maintainer: text that seems to address the LLM judge (a suspected prompt
injection, `judge.safety`) puts a submission in `needs review` instead of the scoring queue.

    python -m leaderboard review list [--store DIR]
    python -m leaderboard review approve ID [--store DIR --data DIR] [--no-score]
    python -m leaderboard review reject ID --reason "..." [--store DIR]

`approve` queues it (and scores it at once in this process unless --no-score; a Space or external
worker would otherwise pick it up on its next pass or restart); `reject` records `failed` with the
reason, which does not count against the user's quota. The user only ever sees a neutral message:
what matched is kept in the private queue record for the maintainer.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .judge.safety import injection_kinds
from .settings import Settings

NEEDS_REVIEW = "needs review"
NEUTRAL_MESSAGE = "held for a routine check by a maintainer before scoring; no action is needed from you"
SHOWN_IDS = 20


def suspected_injections(benchmark, report) -> dict[str, list[str]]:
    """id -> names of the matching injection patterns, over every text field of the valid predictions.
    Only benchmarks that send text to an LLM judge are checked (elsewhere no judge reads it)."""
    if "judge" not in getattr(benchmark, "needs", ()):
        return {}
    fields = [f.name for f in benchmark.schema.fields if f.kind in ("string", "string_list")]
    found: dict[str, list[str]] = {}
    for item_id, row in _rows(report, fields):
        for name in fields:
            value = row.get(name)
            texts = value if isinstance(value, list) else [value]
            for text in texts:
                if isinstance(text, str) and text:
                    kinds = injection_kinds(text)
                    if kinds:
                        found.setdefault(str(item_id), []).extend(k for k in kinds if k not in found.get(str(item_id), []))
    return found


def _rows(report, fields):
    table = getattr(report, "table", None)
    if table is not None:
        present = [f for f in fields if f in table.column_names]
        ids = table.column("id").to_pylist()
        columns = {f: table.column(f).to_pylist() for f in present}
        for k, item_id in enumerate(ids):
            yield item_id, {f: columns[f][k] for f in present}
    else:
        yield from (report.valid or {}).items()


def review_note(found: dict[str, list[str]]) -> dict:
    """What the maintainer sees in the private queue record."""
    kinds = sorted({k for names in found.values() for k in names})
    return {"suspected_injection_items": len(found), "ids": sorted(found)[:SHOWN_IDS], "patterns": kinds}


# ------------------------------------------------------------------------------------------------ CLI
def main(argv: list[str] | None = None) -> int:
    settings = Settings.from_env()
    parser = argparse.ArgumentParser(prog="python -m leaderboard review", description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", type=Path, default=settings.store)
    parser.add_argument("--data", type=Path, default=settings.data, help="folder holding the built datasets")
    sub = parser.add_subparsers(dest="action", required=True)
    sub.add_parser("list", help="submissions waiting for review")
    approve = sub.add_parser("approve", help="queue a held submission for scoring")
    approve.add_argument("id")
    approve.add_argument("--no-score", action="store_true", help="only queue it; a worker scores it later")
    reject = sub.add_parser("reject", help="fail a held submission with a reason (quota refunded)")
    reject.add_argument("id")
    reject.add_argument("--reason", required=True)
    args = parser.parse_args(argv)

    from . import registry
    from .disclosure import Policy
    from .service import Service
    from .store import LocalStore

    service = Service(store=LocalStore(args.store, policy=Policy.from_settings(settings)),
                      data_dirs={n: args.data / n for n in registry.names()})
    if args.action == "list":
        held = [r for r in service.queue_records() if r.get("state") == NEEDS_REVIEW]
        if not held:
            print("nothing waits for review")
        for r in held:
            note = r.get("review") or {}
            print(f"{r['id']}  {r['benchmark']}  {r['model']['name']!r}  user {r.get('user')}  created {r['created_at']}")
            if note.get("anomalies"):  # scored, held by leaderboard/judge/anomaly.py; approving scores it again
                print("    anomaly: " + "; ".join(note["anomalies"]))
            else:
                print(f"    {note.get('suspected_injection_items', '?')} item(s) matched {', '.join(note.get('patterns', []))}; "
                      f"ids: {', '.join(note.get('ids', []))}")
        return 0
    record = service.store.read_json(service.queue_path(args.id))
    if not record:
        print(f"error: no submission {args.id!r} in {args.store}", file=sys.stderr)
        return 2
    if record.get("state") != NEEDS_REVIEW:
        print(f"error: {args.id} is {record.get('state')!r}, not {NEEDS_REVIEW!r}", file=sys.stderr)
        return 2
    if args.action == "reject":
        reason = " ".join(args.reason.split())[:300]
        service._update(args.id, state="failed", review_decision="rejected",
                        message=f"not scored after review: {reason}; this does not count against your quota")
        print(f"{args.id} rejected")
        return 0
    service._update(args.id, state="queued", review_decision="approved", progress=0.0,
                    message="approved after review; waiting for a scoring worker")
    print(f"{args.id} approved and queued")
    if not args.no_score:
        if record["benchmark"] not in service.available():
            print(f"no built dataset for {record['benchmark']} under {args.data}; left queued for a worker")
            return 0
        from .scoring_services import ServiceOptions, context_factory

        service.context_factory = context_factory(lambda name: registry.scorer(name).needs,
                                                  ServiceOptions(cache_dir=args.store / "private" / "cache"))
        service.score_one(args.id)
        state = service.store.read_json(service.queue_path(args.id)) or {}
        print(f"{args.id}: {state.get('state')} ({state.get('message')})")
    return 0

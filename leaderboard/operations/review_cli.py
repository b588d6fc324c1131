"""A maintainer decides on held submissions (review.py says which are held and why):

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

from .review import NEEDS_REVIEW
from ..settings import Settings


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

    from ..scoring import registry
    from ..privacy.disclosure import Policy
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
            if note.get("anomalies"):  # scored, held by leaderboard/scoring/judge/anomaly.py; approving scores it again
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
        from ..scoring.services import ServiceOptions, context_factory

        service.context_factory = context_factory(lambda name: registry.scorer(name).needs,
                                                  ServiceOptions(cache_dir=args.store / "private" / "cache"))
        service.score_one(args.id)
        state = service.store.read_json(service.queue_path(args.id)) or {}
        print(f"{args.id}: {state.get('state')} ({state.get('message')})")
    return 0

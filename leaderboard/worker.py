"""`python -m leaderboard worker`: scores queued submissions outside the Space.

For answer keys or judges the Space must not hold: run the Space with LEADERBOARD_WORKER=external
(it then only validates and queues) and run this worker where the keys live. With Hub repos
configured, each cycle pulls the queue and uploads from the private repo and pushes results back
through the store's mirror; with a shared folder, both simply use the same store path.
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

from . import registry
from .scoring_services import CODER_CHOICES, ServiceOptions, context_factory
from .service import Service
from .settings import Settings
from .store import HubMirror, LocalStore


def pull(mirror: HubMirror, root: Path) -> None:
    from huggingface_hub import snapshot_download

    snapshot_download(repo_id=mirror.private_repo, repo_type="dataset", local_dir=str(root),
                      allow_patterns=["private/queue/*", "private/uploads/**"], token=getattr(mirror.api, "token", None))


def run_cycle(service: Service, mirror: HubMirror | None = None) -> int:
    """Score every queued submission once; returns how many were processed."""
    if mirror is not None:
        pull(mirror, service.store.root)
        mirror.retry_pending()
    from .judge import JudgeConfig

    states = ("queued", "scoring") + (("waiting for judge",) if JudgeConfig.from_env() is not None else ())
    done = 0
    for record in service.queue_records():
        if record.get("state") in states and record.get("benchmark") in service.available():
            service.score_one(record["id"])
            done += 1
    return done


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m leaderboard worker")
    settings = Settings.from_env()
    parser.add_argument("--store", type=Path, default=settings.store)
    parser.add_argument("--data", type=Path, default=settings.data, help="folder holding the built datasets (and -answers)")
    parser.add_argument("--hub-results-repo", default=settings.hub_results_repo)
    parser.add_argument("--hub-private-repo", default=settings.hub_private_repo)
    parser.add_argument("--icd-coder", choices=CODER_CHOICES, default="auto")
    parser.add_argument("--sapbert")
    parser.add_argument("--once", action="store_true", help="one pass over the queue, then exit")
    parser.add_argument("--poll", type=float, default=10.0, help="seconds between passes")
    args = parser.parse_args(argv)
    mirror = HubMirror(args.hub_results_repo, args.hub_private_repo) if args.hub_results_repo and args.hub_private_repo else None

    options = ServiceOptions(icd_coder=args.icd_coder, sapbert=args.sapbert, cache_dir=args.store / "private" / "cache")
    service = Service(store=LocalStore(args.store, mirror), data_dirs={n: args.data / n for n in registry.names()},
                      context_factory=context_factory(options=options), judge_retry_seconds=settings.judge_retry_seconds,
                      judge_max_attempts=settings.judge_max_attempts, score_seconds=settings.score_seconds,
                      score_memory_mb=settings.score_memory_mb)
    while True:
        done = run_cycle(service, mirror)
        print(f"scored {done} submission(s)", flush=True)
        if args.once:
            return 0
        time.sleep(args.poll)

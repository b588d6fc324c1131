"""`python -m leaderboard worker`: scores queued submissions outside the Space.

For answer keys or judges the Space must not hold: run the Space with LEADERBOARD_WORKER=external
(it then only validates and queues) and run this worker where the keys live. With a shared folder,
the Space and one worker simply use the same store path (`--store`).

With Hub repos (`--hub-private-repo`, `--hub-results-repo`), workers share the queue through the Hub:
each claims a submission with a parent-checked commit (leaderboard/hub_queue.py), so any number of
workers can run at once; the answer keys come from `--data` or from the `<repo>-answers` dataset repos
(`--datasets`, downloaded with the worker's own token).
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

from . import registry
from .scoring_services import CODER_CHOICES, ServiceOptions, context_factory
from .service import Service
from .settings import Settings
from .disclosure import Policy
from .store import LocalStore


def run_cycle(service: Service) -> int:
    """Score every queued submission of a shared store folder once; returns how many were processed."""
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
    parser.add_argument("--datasets", default=settings.datasets,
                        help="Hub dataset repos (ORG/NAME,... or ORG) to score against, with their -answers repos")
    parser.add_argument("--worker-id", default=settings.worker_id, help="shown as 'scoring (worker X)'")
    parser.add_argument("--lease", type=float, default=settings.lease_seconds,
                        help="seconds without a lease renewal after which another worker takes a submission over")
    args = parser.parse_args(argv)
    if bool(args.hub_results_repo) != bool(args.hub_private_repo):
        parser.error("give both --hub-results-repo and --hub-private-repo (the Hub queue), or neither (a shared --store)")
    if args.hub_results_repo:
        return hub_main(args, settings)

    options = ServiceOptions(icd_coder=args.icd_coder, sapbert=args.sapbert, cache_dir=args.store / "private" / "cache")
    service = Service(store=LocalStore(args.store, policy=Policy.from_settings(settings)),
                      data_dirs={n: args.data / n for n in registry.names()},
                      context_factory=context_factory(options=options), judge_retry_seconds=settings.judge_retry_seconds,
                      judge_max_attempts=settings.judge_max_attempts, score_seconds=settings.score_seconds,
                      score_memory_mb=settings.score_memory_mb)
    while True:
        done = run_cycle(service)
        print(f"scored {done} submission(s)", flush=True)
        if args.once:
            return 0
        time.sleep(args.poll)


def hub_main(args, settings: Settings) -> int:
    """Claim, score and publish submissions from the Hub queue until stopped (or once through with --once)."""
    from .hub_data import HubDatasets, dataset_repos, default_cache
    from .hub_queue import HubQueue, LostClaim, default_worker_id, score_claimed

    worker_id = args.worker_id or default_worker_id()
    scratch = args.store / "worker" / worker_id  # this worker's own folder: nothing shared on disk
    if args.datasets:
        datasets = HubDatasets(dataset_repos(args.datasets, registry.names()),
                               default_cache(settings.hub_cache) / "datasets", answers=True)
        datasets.sync()
        data_dirs = datasets.data_dirs
    else:
        datasets, data_dirs = None, {n: args.data / n for n in registry.names()}
    options = ServiceOptions(icd_coder=args.icd_coder, sapbert=args.sapbert, cache_dir=scratch / "cache")
    # the disclosure policy (k, secret, noise) as configured: several workers must share LEADERBOARD_SECRET
    service = Service(store=LocalStore(scratch / "store", policy=Policy.from_settings(settings)), data_dirs=data_dirs,
                      context_factory=context_factory(options=options), judge_retry_seconds=settings.judge_retry_seconds,
                      judge_max_attempts=settings.judge_max_attempts, score_seconds=settings.score_seconds,
                      score_memory_mb=settings.score_memory_mb)
    from .judge import JudgeConfig

    queue = HubQueue(args.hub_private_repo, args.hub_results_repo, worker_id, args.lease, scratch / "hub-cache",
                     retry_judged_after=settings.judge_retry_seconds if JudgeConfig.from_env() is not None else None)
    print(f"worker {worker_id}: scoring {', '.join(service.available()) or 'nothing'} from {args.hub_private_repo}",
          flush=True)
    while True:
        claimed = queue.claim(service.available())
        if claimed is None:
            if args.once:
                return 0
            time.sleep(args.poll)
            if datasets is not None and datasets.sync():
                service.forget_keys()
            continue
        print(f"claimed {claimed['id']} (attempt {claimed['attempt']})", flush=True)
        try:
            state = score_claimed(queue, service, claimed)
            print(f"{claimed['id']}: {state}", flush=True)
        except LostClaim:
            print(f"{claimed['id']}: lease lost to another worker; result dropped", flush=True)

"""`python -m leaderboard worker`: scores queued submissions outside the Space.

For answer keys or judges the Space must not hold: run the Space with LEADERBOARD_WORKER=external
(it then only validates and queues) and run this worker where the keys live. With a shared folder,
the Space and one worker simply use the same store path (`--store`).

With Hub repos (`--hub-private-repo`, `--hub-results-repo`), workers share the queue through the Hub:
each claims a submission with a parent-checked commit (leaderboard/operations/hub_queue.py), so any number of
workers can run at once; the answer keys come from `--data` or from the `<repo>-answers` dataset repos
(`--datasets`, downloaded with the worker's own token).
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

from ..scoring import registry
from ..scoring.services import CODER_CHOICES, ServiceOptions, context_factory
from .service import Service
from ..settings import Settings
from ..privacy.disclosure import Policy
from .store import LocalStore


def run_cycle(service: Service) -> int:
    """Score every queued submission of a shared store folder once; returns how many were processed."""
    from ..scoring.judge import judge_configured

    states = ("queued", "scoring") + (("waiting for judge",) if judge_configured() else ())
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
    """Claim, score and publish submissions from the Hub queue until stopped (or once through with --once).
    Exits (status 2) only on a configuration error; Hub faults are retried, logged and outlived."""
    from ..remote.hub_calls import HubConfigError, HubMissing, HubUnavailable, head_files, use_timeouts
    from .hub_data import HubDatasets, dataset_repos, default_cache
    from .hub_ledger import HubLedger
    from .hub_queue import HubQueue, default_worker_id
    from ..scoring.judge import judge_configured

    use_timeouts()
    worker_id = args.worker_id or default_worker_id(args.hub_private_repo, args.hub_results_repo, args.datasets or "",
                                                    str(Path(args.store).resolve()))
    scratch = args.store / "worker" / worker_id  # this worker's own folder; no per-account state in it
    queue = HubQueue(args.hub_private_repo, args.hub_results_repo, worker_id, args.lease,
                     retry_judged_after=settings.judge_retry_seconds if judge_configured() else None)
    try:
        for repo in (args.hub_private_repo, args.hub_results_repo):
            head_files(queue.api, repo)
    except (HubConfigError, HubMissing) as exc:
        print(f"worker {worker_id}: cannot use the Hub repos: {exc}", flush=True)
        return 2
    except HubUnavailable as exc:  # down now: the loop below keeps trying
        print(f"worker {worker_id}: {exc}; will keep trying", flush=True)
    if args.datasets:
        datasets = HubDatasets(dataset_repos(args.datasets, registry.names()),
                               default_cache(settings.hub_cache) / "datasets", answers=True)
        datasets.sync()
        data_dirs = datasets.data_dirs
    else:
        datasets, data_dirs = None, {n: args.data / n for n in registry.names()}
    options = ServiceOptions(icd_coder=args.icd_coder, sapbert=args.sapbert, cache_dir=scratch / "cache")
    # the disclosure policy (k, secret, noise) as configured: several workers must share LEADERBOARD_SECRET;
    # the breakdown budget lives on the Hub (one ledger for every worker)
    store = LocalStore(scratch / "store", policy=Policy.from_settings(settings),
                       ledger=HubLedger(queue.api, args.hub_private_repo))
    service = Service(store=store, data_dirs=data_dirs,
                      context_factory=context_factory(options=options), judge_retry_seconds=settings.judge_retry_seconds,
                      judge_max_attempts=settings.judge_max_attempts, score_seconds=settings.score_seconds,
                      score_memory_mb=settings.score_memory_mb)
    print(f"worker {worker_id}: scoring {', '.join(service.available()) or 'nothing'} from {args.hub_private_repo}",
          flush=True)
    try:
        serve(queue, service, once=args.once, poll=args.poll, datasets=datasets)
    except HubConfigError as exc:
        print(f"worker {worker_id}: {exc}", flush=True)
        return 2
    return 0


def serve(queue, service: Service, once: bool = False, poll: float = 10.0, datasets=None, stop=None,
          say=lambda text: print(text, flush=True)) -> None:
    """The worker's loop: claim, score, publish; a Hub fault skips this pass (logged), it never ends the loop.
    `stop` (a threading.Event) ends it between submissions; `once` ends it when nothing is claimable."""
    from ..remote.hub_calls import HubConfigError
    from .hub_queue import LostClaim, score_claimed

    failures = 0
    while stop is None or not stop.is_set():
        try:
            claimed = queue.claim(service.available())
            failures = 0
        except HubConfigError:
            raise
        except Exception as exc:  # the Hub is failing: wait a pass and read again
            failures += 1
            say(f"queue unreadable this pass ({type(exc).__name__}); retrying")
            if once and failures < 10:
                (stop.wait if stop is not None else time.sleep)(min(poll, 1.0))
                continue
            claimed = None
        if claimed is None:
            if once:
                return
            (stop.wait if stop is not None else time.sleep)(poll)
            if datasets is not None and datasets.sync():
                service.forget_keys()
            continue
        say(f"claimed {claimed['id']} (attempt {claimed['attempt']})")
        try:
            say(f"{claimed['id']}: {score_claimed(queue, service, claimed)}")
        except LostClaim:
            say(f"{claimed['id']}: lease lost to another worker; result dropped")
        except HubConfigError:
            raise
        except Exception as exc:  # the claim's lease runs out and it is taken over (or we take it again)
            say(f"{claimed['id']}: could not finish ({type(exc).__name__}); it returns to the queue after its lease")

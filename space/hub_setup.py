"""On a Hugging Face Space: the Space's datasets and results come from the Hub, kept fresh without a restart.

Active only when LEADERBOARD_DATASETS is set (the deploy command sets it as a Space variable); locally the
Space reads `hub/` and `store/` as before. Downloads use the Space's own token (its HF_TOKEN secret).
"""
from __future__ import annotations

import logging

from leaderboard.scoring import registry
from leaderboard.operations.hub_data import HubDatasets, Refresher, dataset_repos, default_cache, pull_store
from leaderboard.operations.service import Service
from leaderboard.settings import Settings

log = logging.getLogger("space.hub_setup")


def attach_hub(service: Service, settings: Settings) -> Refresher | None:
    if not settings.datasets:
        return None
    datasets = HubDatasets(dataset_repos(settings.datasets, registry.names()),
                           default_cache(settings.hub_cache) / "datasets")
    datasets.sync()
    service.data_dirs = datasets.data_dirs
    mirror = service.store.mirror

    def pull() -> None:
        if mirror is not None:
            mirror.retry_pending()  # our own writes first, so a pull never hides them
            pull_store(mirror.public_repo, mirror.private_repo, service.store.root,
                       keep=frozenset(path for _, path, _ in mirror.pending))

    try:
        pull()
    except Exception as exc:  # the Hub is unreachable: start on what is cached, the refresher retries
        log.warning("could not read the results store from the Hub (%s)", type(exc).__name__)

    def step() -> None:
        if datasets.sync():
            service.forget_keys()
        pull()

    service.hub_refresher = Refresher(step, settings.refresh_seconds).start()
    return service.hub_refresher

"""Every environment variable the project reads, with its default, in one place.

Library code takes values as arguments; front doors (CLIs, worker, Space) call `Settings.from_env()`
once and pass what they need down. docs/deploying.md's settings tables list the same names.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Mapping


class SettingsError(ValueError):
    """An environment variable holds a value of the wrong shape (e.g. a quota that is not a number)."""


@dataclass(frozen=True)
class Settings:
    # where things live
    data: Path = Path("hub")  # LEADERBOARD_DATA: built datasets (and their -answers folders)
    store: Path = Path("store")  # LEADERBOARD_STORE: results store (results/ public, private/ private)
    # the Space and its queue
    quota: int = 5  # LEADERBOARD_QUOTA: submissions per user per UTC day
    local_user: str = "local-user"  # LEADERBOARD_LOCAL_USER: identity when not on a Hugging Face Space
    worker: str = "internal"  # LEADERBOARD_WORKER: "external" = the Space only validates and queues
    judge_retry_seconds: float = 300.0  # LEADERBOARD_JUDGE_RETRY: idle retry of submissions waiting for a judge
    judge_max_attempts: int = 5  # LEADERBOARD_JUDGE_ATTEMPTS: judge passes per submission, then `failed`
    score_seconds: float = 3600.0  # LEADERBOARD_SCORE_SECONDS: wall-time limit of one submission's scoring
    max_upload_mb: int = 200  # LEADERBOARD_MAX_UPLOAD_MB: largest prediction file (MB = 10^6 bytes), also Gradio's
    score_memory_mb: int = 4000  # LEADERBOARD_SCORE_MEMORY_MB: memory limit (MB = 10^6 bytes) of one scoring
    check_seconds: float = 60.0  # LEADERBOARD_CHECK_SECONDS: wall-time limit of one upload's check (validation)
    check_memory_mb: int = 2500  # LEADERBOARD_CHECK_MEMORY_MB: memory limit (MB) of one upload's check
    hub_results_repo: str | None = None  # LEADERBOARD_HUB_RESULTS_REPO: public results mirror
    hub_private_repo: str | None = None  # LEADERBOARD_HUB_PRIVATE_REPO: private mirror (uploads, per-item, queue)
    # disclosure control of public records (leaderboard.privacy.disclosure)
    min_public_cell: int = 5  # LEADERBOARD_MIN_CELL: no public number from fewer items
    secret: str | None = None  # LEADERBOARD_SECRET: keys the public fingerprint and noise of held-out keys
    public_noise_items: float = 2.0  # LEADERBOARD_PUBLIC_NOISE: noise on held-out public values, in items
    # on a Hugging Face Space (see docs/deploying.md)
    datasets: str | None = None  # LEADERBOARD_DATASETS: Hub dataset repos ("org/<name>,org/<name2>") or one org ("org")
    hub_cache: Path | None = None  # LEADERBOARD_HUB_CACHE: where Hub data is kept (default /data/... when mounted)
    refresh_seconds: float = 300.0  # LEADERBOARD_REFRESH: how often a Space re-reads the datasets and the store
    lease_seconds: float = 600.0  # LEADERBOARD_LEASE: a claimed submission whose worker went silent this long is re-queued
    worker_id: str | None = None  # LEADERBOARD_WORKER_ID: name shown as "scoring (worker X)" (default host-confighash)
    space_token: str | None = None  # LEADERBOARD_SPACE_TOKEN: token `space deploy` stores as the Space's HF_TOKEN secret
    breakdowns_per_month: int = 5  # LEADERBOARD_BREAKDOWNS: results per account per 30 days shown with breakdowns
    server_name: str = "127.0.0.1"  # GRADIO_SERVER_NAME
    server_port: int = 7860  # GRADIO_SERVER_PORT
    # matching (diagnosis benchmarks)
    sapbert_path: str | None = None  # SAPBERT_PATH: local SapBERT folder
    who_base_url: str | None = None  # WHO_ICD_BASE_URL: WHO ICD-API (e.g. a local container)
    who_client_id: str | None = None  # WHO_ICD_CLIENT_ID: cloud ICD-API credentials
    who_client_secret: str | None = None  # WHO_ICD_CLIENT_SECRET
    who_token_url: str | None = None  # WHO_ICD_TOKEN_URL
    who_release: str | None = None  # WHO_ICD_RELEASE: ICD-11 MMS release id (coder default 2025-01)
    # LLM judges
    judge_base_url: str | None = None  # JUDGE_BASE_URL: OpenAI-compatible endpoint
    judge_model: str | None = None  # JUDGE_MODEL
    judge_model_2: str | None = None  # JUDGE_MODEL_2: second judge where the protocol has two
    # LETTER_READER_MODEL: a model at JUDGE_BASE_URL that reads the responses the letter rule leaves unparseable
    # (leaderboard/scoring/letter_reader.py); unset = the rule alone
    letter_reader_model: str | None = None
    judge_api_key: str | None = None  # JUDGE_API_KEY
    judge_timeout: float = 15.0  # JUDGE_TIMEOUT: seconds per HTTP attempt to a judge, body included
    judge_call_attempts: int = 3  # JUDGE_CALL_ATTEMPTS: HTTP attempts per judge call (retries and re-asks)
    judge_budget: float = 3000.0  # JUDGE_BUDGET: seconds for all judge calls of one submission (0: none)
    judge_stall: float = 60.0  # JUDGE_STALL: seconds without a usable judge answer before giving up (0: never)
    judge_verdicts_repo: str | None = None  # JUDGE_VERDICTS_REPO: private Hub dataset of shared judge verdicts
    # predict
    predict_api_key: str | None = None  # PREDICT_API_KEY: key for the endpoint `predict` calls

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> "Settings":
        env = os.environ if environ is None else environ
        values = {}
        for f in fields(cls):
            raw = env.get(ENV_NAMES[f.name])
            if raw is None or not raw.strip():
                continue
            values[f.name] = _convert(f.name, raw.strip(), f.default)
        return cls(**values)


ENV_NAMES = {
    "data": "LEADERBOARD_DATA", "store": "LEADERBOARD_STORE", "quota": "LEADERBOARD_QUOTA",
    "local_user": "LEADERBOARD_LOCAL_USER", "worker": "LEADERBOARD_WORKER",
    "judge_retry_seconds": "LEADERBOARD_JUDGE_RETRY", "judge_max_attempts": "LEADERBOARD_JUDGE_ATTEMPTS",
    "score_seconds": "LEADERBOARD_SCORE_SECONDS", "max_upload_mb": "LEADERBOARD_MAX_UPLOAD_MB", "score_memory_mb": "LEADERBOARD_SCORE_MEMORY_MB",
    "check_seconds": "LEADERBOARD_CHECK_SECONDS", "check_memory_mb": "LEADERBOARD_CHECK_MEMORY_MB",
    "hub_results_repo": "LEADERBOARD_HUB_RESULTS_REPO",
    "hub_private_repo": "LEADERBOARD_HUB_PRIVATE_REPO", "min_public_cell": "LEADERBOARD_MIN_CELL",
    "secret": "LEADERBOARD_SECRET", "public_noise_items": "LEADERBOARD_PUBLIC_NOISE", "datasets": "LEADERBOARD_DATASETS",
    "hub_cache": "LEADERBOARD_HUB_CACHE", "refresh_seconds": "LEADERBOARD_REFRESH", "lease_seconds": "LEADERBOARD_LEASE",
    "worker_id": "LEADERBOARD_WORKER_ID", "space_token": "LEADERBOARD_SPACE_TOKEN", "server_name": "GRADIO_SERVER_NAME",
    "breakdowns_per_month": "LEADERBOARD_BREAKDOWNS",
    "server_port": "GRADIO_SERVER_PORT", "sapbert_path": "SAPBERT_PATH", "who_base_url": "WHO_ICD_BASE_URL",
    "who_client_id": "WHO_ICD_CLIENT_ID", "who_client_secret": "WHO_ICD_CLIENT_SECRET",
    "who_token_url": "WHO_ICD_TOKEN_URL", "who_release": "WHO_ICD_RELEASE", "judge_base_url": "JUDGE_BASE_URL",
    "judge_model": "JUDGE_MODEL", "judge_model_2": "JUDGE_MODEL_2", "letter_reader_model": "LETTER_READER_MODEL",
    "judge_api_key": "JUDGE_API_KEY",
    "judge_timeout": "JUDGE_TIMEOUT", "judge_call_attempts": "JUDGE_CALL_ATTEMPTS", "judge_budget": "JUDGE_BUDGET",
    "judge_stall": "JUDGE_STALL", "judge_verdicts_repo": "JUDGE_VERDICTS_REPO",
    "predict_api_key": "PREDICT_API_KEY",
}


OPTIONAL_PATHS = ("hub_cache",)


def _convert(name: str, raw: str, default):
    try:
        if isinstance(default, bool):
            return raw.lower() in ("1", "true", "yes", "on")
        if isinstance(default, int):
            return int(raw)
        if isinstance(default, float):
            return float(raw)
        if isinstance(default, Path) or name in OPTIONAL_PATHS:
            return Path(raw)
    except ValueError:
        raise SettingsError(f"{ENV_NAMES[name]}={raw!r} is not a valid {type(default).__name__}") from None
    return raw

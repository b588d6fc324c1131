"""Chooses the ICD-11 coder and the embedder for a score from flags and the environment."""
from __future__ import annotations

import os
from pathlib import Path

from .benchmarks.base import ScoringContext

CODER_CHOICES = ("auto", "who", "offline", "none")


def configure_matchers(context: ScoringContext, icd_coder: str = "auto", who_base_url: str | None = None,
                       who_release: str | None = None, sapbert: str | None = None,
                       cache_dir: Path | None = None) -> ScoringContext:
    """`auto`: the WHO ICD-API when WHO_ICD_BASE_URL (or client credentials) is set, else the approximate
    offline title coder. Semantic matching needs SapBERT at --sapbert or SAPBERT_PATH."""
    from .matching.icd import OfflineTitleCoder, WhoIcdApiCoder

    if icd_coder in ("auto", "who"):
        overrides = {k: v for k, v in {"base_url": who_base_url, "release": who_release}.items() if v}
        if cache_dir is not None:
            overrides["cache_path"] = Path(cache_dir) / "who_icd_cache.sqlite"
        who = WhoIcdApiCoder.from_env(**overrides) if not who_base_url else WhoIcdApiCoder(**overrides)
        if who is not None:
            context.icd_coder = who
        elif icd_coder == "who":
            raise SystemExit("--icd-coder who needs WHO_ICD_BASE_URL (a local WHO container) or "
                             "WHO_ICD_CLIENT_ID/WHO_ICD_CLIENT_SECRET, or --who-base-url")
    if context.icd_coder is None and icd_coder in ("auto", "offline"):
        try:
            context.icd_coder = OfflineTitleCoder()
        except RuntimeError as exc:
            context.icd_coder_reason = f"ICD matching unavailable: {exc}"
    if icd_coder == "none":
        context.icd_coder_reason = "ICD matching switched off (--icd-coder none)"
    from .matching.embedder import load_embedder

    embedder, reason = load_embedder(sapbert or os.environ.get("SAPBERT_PATH"))
    context.embedder = embedder
    if embedder is None:
        context.embedder_reason = reason
    return context


def configure_judges(context: ScoringContext, base_url: str | None = None, model: str | None = None,
                     model_2: str | None = None, api_key: str | None = None, cache_dir: Path | None = None,
                     concurrency: int | None = None, response_format: str | None = None) -> ScoringContext:
    """Judges from flags, else JUDGE_BASE_URL / JUDGE_MODEL / JUDGE_MODEL_2 / JUDGE_API_KEY. All calls are
    cached in CACHE_DIR/judge_cache.sqlite, so a rescore or a resumed run costs nothing."""
    from .judge import Judge, JudgeConfig

    overrides = {k: v for k, v in {"base_url": base_url, "api_key": api_key, "concurrency": concurrency,
                                   "response_format": response_format}.items() if v}
    if cache_dir is not None:
        overrides["cache_path"] = Path(cache_dir) / "judge_cache.sqlite"
    first = JudgeConfig.from_env(model=model, **overrides) if model else JudgeConfig.from_env(**overrides)
    if first is not None:
        context.judge = Judge(first)
        second = (JudgeConfig.from_env(model=model_2, **overrides) if model_2
                  else JudgeConfig.from_env("JUDGE_MODEL_2", **overrides))
        context.judge_2 = Judge(second) if second is not None else None
    return context

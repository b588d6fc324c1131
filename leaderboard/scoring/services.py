"""Builds the scoring services a benchmark declares in `needs` (ICD-11 coder, embedder, judges) from
flags and settings. Only the declared ones are built: a benchmark without `icd_coder` never loads the ICD-11
title index, one without `judge` never opens a judge client."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from .metrics.bootstrap import DEFAULT_RESAMPLES
from .benchmark import ScoringContext
from ..settings import Settings

CODER_CHOICES = ("auto", "who", "offline", "none")


class ServiceConfigError(ValueError):
    """A service was asked for explicitly but cannot be configured (e.g. --icd-coder who without a URL)."""


@dataclass(frozen=True)
class ServiceOptions:
    """What flags can say about the services; None = from the settings (environment)."""

    icd_coder: str = "auto"
    who_base_url: str | None = None
    who_release: str | None = None
    sapbert: str | None = None
    cache_dir: Path | None = None
    judge_base_url: str | None = None
    judge_model: str | None = None
    judge_model_2: str | None = None
    letter_reader_model: str | None = None  # a model at the judge endpoint for the letter rule's tail
    judge_api_key: str | None = None
    judge_concurrency: int | None = None
    judge_format: str | None = None
    # timeout / attempts / budget_seconds / stall_seconds given by flags (JudgeConfig field -> value)
    judge_limits: tuple[tuple[str, float], ...] = ()


def configure_services(context: ScoringContext, needs: tuple[str, ...], options: ServiceOptions | None = None,
                       settings: Settings | None = None) -> ScoringContext:
    """Provide every service in `needs` on `context`, or record why it is missing."""
    options = options or ServiceOptions()
    settings = settings or Settings.from_env()
    if options.cache_dir is not None:
        context.cache_dir = Path(options.cache_dir)
    if {"icd_coder", "embedder"} & set(needs):
        configure_matchers(context, options.icd_coder if "icd_coder" in needs else "none", options.who_base_url,
                           options.who_release, options.sapbert if "embedder" in needs else None, options.cache_dir,
                           settings=settings, embedder="embedder" in needs)
    if {"judge", "judge_2"} & set(needs):
        configure_judges(context, options.judge_base_url, options.judge_model, options.judge_model_2,
                         options.judge_api_key, options.cache_dir, options.judge_concurrency, options.judge_format,
                         dict(options.judge_limits))
    if "letter_reader" in needs:
        configure_letter_reader(context, options.letter_reader_model, options.judge_base_url, options.judge_api_key,
                                options.cache_dir, options.judge_concurrency, options.judge_format,
                                dict(options.judge_limits))
    return context


@dataclass(frozen=True)
class ContextFactory:
    """benchmark name -> a fresh context with that benchmark's services. A plain picklable object, so the
    Service can hand it to the child process that scores (leaderboard/scoring/isolation.py)."""

    options: ServiceOptions | None = None
    resamples: int = DEFAULT_RESAMPLES  # the one default (leaderboard.scoring.engine.CI_RESAMPLES): the CLI's too
    needs_of: Callable[[str], tuple[str, ...]] | None = None  # None: what the benchmark declares in `needs`

    def __call__(self, benchmark: str) -> ScoringContext:
        if self.needs_of is not None:
            needs = self.needs_of(benchmark)
        else:
            from . import registry

            needs = registry.scorer(benchmark).needs
        return configure_services(ScoringContext(resamples=self.resamples), needs, self.options)


def context_factory(needs_of: Callable[[str], tuple[str, ...]] | None = None, options: ServiceOptions | None = None,
                    resamples: int = DEFAULT_RESAMPLES) -> ContextFactory:
    """benchmark name -> a fresh context with that benchmark's services (for the Space and the worker);
    leave `needs_of` out to use each benchmark's declared `needs` (and keep the factory picklable)."""
    return ContextFactory(options, resamples, needs_of)


def configure_matchers(context: ScoringContext, icd_coder: str = "auto", who_base_url: str | None = None,
                       who_release: str | None = None, sapbert: str | None = None,
                       cache_dir: Path | None = None, settings: Settings | None = None,
                       embedder: bool = True) -> ScoringContext:
    """`auto`: the WHO ICD-API when WHO_ICD_BASE_URL (or client credentials) is set, else the approximate
    offline title coder. Semantic matching needs SapBERT at --sapbert or SAPBERT_PATH."""
    from .matching.icd import OfflineTitleCoder, WhoIcdApiCoder

    settings = settings or Settings.from_env()
    if icd_coder in ("auto", "who"):
        overrides: dict[str, Any] = {k: v for k, v in {"base_url": who_base_url, "release": who_release}.items() if v}
        if cache_dir is not None:
            overrides["cache_path"] = Path(cache_dir) / "who_icd_cache.sqlite"
        who = WhoIcdApiCoder.from_env(**overrides) if not who_base_url else WhoIcdApiCoder(**overrides)
        if who is not None:
            context.provide("icd_coder", who)
        elif icd_coder == "who":
            raise ServiceConfigError("--icd-coder who needs WHO_ICD_BASE_URL (a local WHO container) or "
                                     "WHO_ICD_CLIENT_ID/WHO_ICD_CLIENT_SECRET, or --who-base-url")
    if context.service("icd_coder") is None and icd_coder in ("auto", "offline"):
        try:
            # the parsed title index is kept in the cache folder: later processes read it instead of the XML
            context.provide("icd_coder", OfflineTitleCoder(index_store=cache_dir))
        except RuntimeError as exc:
            context.provide("icd_coder", None, f"ICD matching unavailable: {exc}")
    if icd_coder == "none":
        context.provide("icd_coder", None, "ICD matching switched off (--icd-coder none)")
    if embedder:
        from .matching.embedder import load_embedder

        model, reason = load_embedder(sapbert or settings.sapbert_path)
        context.provide("embedder", model, reason)
    return context


def judge_limits(args) -> tuple[tuple[str, float], ...]:
    """The judge limits a CLI's flags set (--judge-timeout/-attempts/-budget/-stall), for ServiceOptions."""
    flags = {"timeout": args.judge_timeout, "attempts": args.judge_attempts, "budget_seconds": args.judge_budget,
             "stall_seconds": args.judge_stall}
    return tuple((name, value) for name, value in flags.items() if value is not None)


def configure_judges(context: ScoringContext, base_url: str | None = None, model: str | None = None,
                     model_2: str | None = None, api_key: str | None = None, cache_dir: Path | None = None,
                     concurrency: int | None = None, response_format: str | None = None,
                     limits: dict | None = None) -> ScoringContext:
    """Judges from flags, else JUDGE_BASE_URL / JUDGE_MODEL / JUDGE_MODEL_2 / JUDGE_API_KEY, with the limits
    of `limits` (flags) else JUDGE_TIMEOUT / JUDGE_CALL_ATTEMPTS / JUDGE_BUDGET / JUDGE_STALL. Both judges spend
    one budget (the submission's). All calls are cached in CACHE_DIR/judge_cache.sqlite, so a rescore or a
    resumed run costs nothing."""
    from .judge import Judge, JudgeConfig

    overrides = {k: v for k, v in {"base_url": base_url, "api_key": api_key, "concurrency": concurrency,
                                   "response_format": response_format}.items() if v}
    overrides.update(limits or {})
    if cache_dir is not None:
        overrides["cache_path"] = Path(cache_dir) / "judge_cache.sqlite"
    first = JudgeConfig.from_env(model=model, **overrides) if model else JudgeConfig.from_env(**overrides)
    if first is not None:
        judge = Judge(first)
        context.provide("judge", judge)
        second = (JudgeConfig.from_env(model=model_2, **overrides) if model_2
                  else JudgeConfig.from_env("JUDGE_MODEL_2", **overrides))
        context.provide("judge_2", Judge(second, budget=judge.budget) if second is not None else None)
    return context


def configure_letter_reader(context: ScoringContext, model: str | None = None, base_url: str | None = None,
                            api_key: str | None = None, cache_dir: Path | None = None, concurrency: int | None = None,
                            response_format: str | None = None, limits: dict | None = None) -> ScoringContext:
    """The letter reader (letter_reader.py): `model` or LETTER_READER_MODEL at the judge endpoint, with the judge's
    limits and cache; it spends the submission's judge budget when there is a judge. Off when no model is named."""
    from .judge import Judge, JudgeConfig

    overrides = {k: v for k, v in {"base_url": base_url, "api_key": api_key, "concurrency": concurrency,
                                   "response_format": response_format, "model": model}.items() if v}
    overrides.update(limits or {})
    if cache_dir is not None:
        overrides["cache_path"] = Path(cache_dir) / "judge_cache.sqlite"
    config = JudgeConfig.from_env("LETTER_READER_MODEL", **overrides)
    if config is None and model:
        raise ServiceConfigError("--letter-reader-model needs the judge endpoint: JUDGE_BASE_URL or --judge-base-url")
    if config is None:
        context.provide("letter_reader", None)
        return context
    judge = context.service("judge")
    context.provide("letter_reader", Judge(config, budget=judge.budget if judge is not None else None))
    return context

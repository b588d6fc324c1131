"""`python -m leaderboard validate|score|benchmarks` - the same code paths the Space uses."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .scoring import registry
from .intake.answer_key import AnswerKeyError
from .scoring.benchmark import ScoringContext
from .scoring.matching.errors import IcdServiceError
from .scoring.metrics.bootstrap import DEFAULT_RESAMPLES
from .publishing.report import render_result
from .scoring.result import ModelInfo
from .intake.run_settings import RunSettingsError, read_run_settings
from .scoring.score_file import load_key, score_file, validate_file
from .scoring.services import CODER_CHOICES, ServiceConfigError, ServiceOptions, configure_services, judge_limits
from .privacy.disclosure import Policy
from .remote.hub_calls import HubConfigError
from .settings import Settings, SettingsError


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("benchmark", choices=registry.names())
    parser.add_argument("predictions", type=Path, help="JSONL, JSON array, CSV or Parquet")
    parser.add_argument("--data", type=Path, required=True, help="the built dataset folder, e.g. hub/NAME")
    parser.add_argument("--answers", type=Path, help="held-out answer key folder (default: DATA-answers if needed)")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m leaderboard")
    sub = parser.add_subparsers(dest="command", required=True)
    val = sub.add_parser("validate", help="line-level report on a prediction file; never shows answers")
    _common(val)
    val.add_argument("--json", type=Path, help="also write the report as JSON")
    val.epilog = ("Without an answer key (a held-out build and no --answers) the file is checked against the "
                  "public rows, as the Space does; a submitter never has the key.")
    sc = sub.add_parser("score", help="validate and score a prediction file")
    _common(sc)
    sc.add_argument("--json", type=Path, help="write the result record here: exact values (you hold the answers)")
    sc.add_argument("--public", action="store_true",
                    help="write what the Space would publish instead (small cells pending, held-out noise)")
    sc.add_argument("--per-item", type=Path, help="write private per-item scores (JSONL); they reveal answers")
    sc.add_argument("--model-name", default=None,
                    help="model name recorded in the result (default: the model in PRED.meta.json, else the file stem)")
    sc.add_argument("--settings", type=Path, default=None,
                    help="run settings written by `predict` (default: PRED.meta.json when it exists)")
    sc.add_argument("--icd-coder", choices=CODER_CHOICES, default="auto",
                    help="auto: WHO ICD-API if configured (WHO_ICD_BASE_URL or WHO_ICD_CLIENT_ID), else offline approximate")
    sc.add_argument("--who-base-url", help="WHO ICD-API base URL, e.g. http://localhost:8382 for a local container")
    sc.add_argument("--who-release", help="ICD-11 MMS release id (default 2025-01, as the paper's code)")
    sc.add_argument("--sapbert", help="local SapBERT directory (default: $SAPBERT_PATH)")
    sc.add_argument("--cache-dir", type=Path, default=Path(".cache"),
                    help="where ICD lookups, judge verdicts and the scoring memo (bootstrap CIs, dialogue digests) "
                         "are kept: a rescore reads them back")
    sc.add_argument("--judge-base-url", help="OpenAI-compatible endpoint of the LLM judge (default: $JUDGE_BASE_URL)")
    sc.add_argument("--judge-model", help="judge model id (default: $JUDGE_MODEL)")
    sc.add_argument("--judge-model-2", help="second judge where the protocol has two (default: $JUDGE_MODEL_2)")
    sc.add_argument("--letter-reader-model", help="read the responses the letter rule leaves unparseable "
                    "(multiple-choice benchmarks) with this model at the judge endpoint; recorded in the result (default: "
                    "$LETTER_READER_MODEL, else the rule alone)")
    sc.add_argument("--judge-api-key", help="judge API key (default: $JUDGE_API_KEY; prefer the variable)")
    sc.add_argument("--judge-concurrency", type=int, help="judge requests in flight (default 8)")
    sc.add_argument("--judge-timeout", type=float, help="seconds per judge HTTP attempt, body included (default: "
                    "$JUDGE_TIMEOUT, else 15)")
    sc.add_argument("--judge-attempts", type=int, help="HTTP attempts per judge call, retries and re-asks together "
                    "(default: $JUDGE_CALL_ATTEMPTS, else 3)")
    sc.add_argument("--judge-budget", type=float, help="seconds for all judge calls of this score, 0 = none (default: "
                    "$JUDGE_BUDGET, else 3000)")
    sc.add_argument("--judge-stall", type=float, help="give up on a judge that answers nothing usable this many "
                    "seconds, 0 = never (default: $JUDGE_STALL, else 60)")
    sc.add_argument("--judge-format", choices=("json_object", "json_schema", "text"),
                    help="response_format sent to the judge (llama-cpp-python's server needs json_object or text)")
    sc.add_argument("--resamples", type=int, default=DEFAULT_RESAMPLES, help="bootstrap resamples (0: no CIs)")
    sc.add_argument("--seed", type=int, default=None)
    sc.add_argument("--allow-invalid", action="store_true", help="score even when some lines are invalid (they count as wrong)")
    sc.add_argument("--quiet", action="store_true")
    sub.add_parser("benchmarks", help="list benchmarks and their metrics")
    sub.add_parser("worker", help="score queued Space submissions outside the Space (see --help)", add_help=False)
    sub.add_parser("review", help="list, approve or reject submissions held as suspected injections (see --help)",
                   add_help=False)
    sub.add_parser("predict", help="run a model behind an OpenAI-compatible endpoint on a built dataset (see --help)",
                   add_help=False)
    sub.add_parser("from-lmms-eval", help="an lmms-eval --log_samples folder -> prediction file + run settings (see --help)",
                   add_help=False)
    sub.add_parser("migrate-results", help="convert a results store of JSON records into result shards (see --help)",
                   add_help=False)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["worker"]:
        from .operations.worker import main as worker_main

        return worker_main(argv[1:])
    if argv[:1] == ["review"]:
        from .operations.review_cli import main as review_main

        return review_main(argv[1:])
    if argv[:1] == ["predict"]:
        from .harness.predict.cli import main as predict_main

        return predict_main(argv[1:])
    if argv[:1] == ["migrate-results"]:
        from .operations.migrate_results import main as migrate_main

        return migrate_main(argv[1:])
    if argv[:1] == ["from-lmms-eval"]:
        from .harness.lmms_eval_import import main as import_main

        return import_main(argv[1:])
    args = _parser().parse_args(argv)
    if args.command in ("validate", "score"):
        skip_pyarrow_pandas_probe()  # ~0.5 s of start-up for a library scoring never uses
    if args.command == "benchmarks":
        for bench in registry.scorers().values():
            print(f"{bench.name}: {bench.pretty_name}; primary metric {bench.primary_metric}; "
                  f"{len(bench.metrics)} metrics")
        return 0
    if args.predictions.is_dir():
        print(f"error: {args.predictions} is a folder; give the prediction file itself", file=sys.stderr)
        return 2
    if not args.predictions.is_file():
        print(f"error: prediction file not found: {args.predictions}", file=sys.stderr)
        return 2
    for option in ("json", "per_item"):
        target = getattr(args, option, None)
        if target is not None and (target.is_dir() or not target.parent.is_dir()):
            print(f"error: cannot write --{option.replace('_', '-')} to {target}: "
                  f"{'it is a folder' if target.is_dir() else 'its folder does not exist'}", file=sys.stderr)
            return 2
    try:
        if args.command == "validate":
            return _validate(args)
        return _score(args)
    except (AnswerKeyError, ServiceConfigError, SettingsError, HubConfigError) as exc:  # Hub: JUDGE_VERDICTS_REPO
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except IcdServiceError as exc:  # the WHO ICD-API (or a local container) is down or refusing
        print(f"error: {exc}\nICD lookups made so far are cached; rerun when the service is back, or use "
              "--icd-coder offline (approximate)", file=sys.stderr)
        return 3


def _validate(args) -> int:
    """Against the answer key when there is one here; else, as the Space, against the public rows."""
    from .scoring.public_index import KEY_CHECKS_LATER, has_answer_key, validate_public

    benchmark = registry.scorer(args.benchmark)
    if args.answers is None and not has_answer_key(benchmark, args.data):
        report = validate_public(benchmark, args.predictions, args.data)
        print(report.render())
        print(f"\nnote: {args.data} holds no answer key (a held-out build): the file was checked against the "
              f"public rows, as the Space checks it; {KEY_CHECKS_LATER}")
    else:
        report, _ = validate_file(benchmark, args.predictions, args.data, args.answers)
        print(report.render())
    _say_if_sample(benchmark, args.data)
    if args.json:
        args.json.write_text(json.dumps(report.to_dict(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0 if report.ok else 1


def _say_if_sample(benchmark, data: Path) -> dict | None:
    """Print (and return, for the result's protocol) why a build is a sample and not the benchmark."""
    from .publishing.release import build_status

    status = build_status(benchmark, data)
    if not status.sample:
        return None
    print(f"\nnote: {data} is a SAMPLE build ({status.reason}): not the benchmark; its numbers are not comparable "
          "with the paper's or the leaderboard's")
    return {"sample": True, "reason": status.reason}


def _exact_record(result) -> dict:
    """The whole result with exact values, for a local user who holds the answers (the Space publishes
    `to_public_dict`: small cells pending, held-out noise). Private per-item scores stay out."""
    from dataclasses import asdict

    from .scoring.result import SCHEMA_VERSION, _finite

    disclosure, result.disclosure = result.disclosure, None
    try:
        data = asdict(result)
    finally:
        result.disclosure = disclosure
    data.pop("per_item", None)
    data.pop("disclosure", None)
    data["protocol"] = {**data["protocol"], "disclosure": "none: exact values written locally (`score --json`); "
                                                          "`--public` writes what the Space publishes"}
    data["schema_version"] = SCHEMA_VERSION
    data["coverage"] = None if result.coverage is None else round(result.coverage, 6)
    return _finite(data)


def _score(args) -> int:
    benchmark = registry.scorer(args.benchmark)
    key = load_key(benchmark, args.data, args.answers)
    report, _ = validate_file(benchmark, args.predictions, args.data, key=key)
    if not report.ok and not args.allow_invalid:
        print(report.render(), file=sys.stderr)
        print("\nerror: the file has invalid lines; fix them, or pass --allow-invalid to score the rest "
              "(invalid lines count as wrong)", file=sys.stderr)
        return 1
    settings_path = args.settings or args.predictions.with_name(args.predictions.name + ".meta.json")
    run_settings = None
    if args.settings or settings_path.is_file():
        try:
            run_settings = read_run_settings(settings_path)
        except (RunSettingsError, OSError) as exc:
            print(f"error: {settings_path}: {exc}", file=sys.stderr)
            return 2
    default_name = (run_settings or {}).get("model") or args.predictions.stem
    context = ScoringContext(model=ModelInfo(name=args.model_name or default_name),
                             resamples=args.resamples, progress=not args.quiet,
                             keep_per_item=args.per_item is not None)
    if args.seed is not None:
        context.seed = args.seed
    args.cache_dir.mkdir(parents=True, exist_ok=True)
    configure_services(context, benchmark.needs, ServiceOptions(
        icd_coder=args.icd_coder, who_base_url=args.who_base_url, who_release=args.who_release, sapbert=args.sapbert,
        cache_dir=args.cache_dir, judge_base_url=args.judge_base_url, judge_model=args.judge_model,
        judge_model_2=args.judge_model_2, letter_reader_model=args.letter_reader_model, judge_api_key=args.judge_api_key,
        judge_concurrency=args.judge_concurrency, judge_format=args.judge_format, judge_limits=judge_limits(args)))
    _, result = score_file(benchmark, args.predictions, args.data, context, key=key, report=report)
    if run_settings:
        result.protocol["run_settings"] = run_settings
    if report.issues:
        print(report.render(limit=20), file=sys.stderr)
        print(file=sys.stderr)
    sample = _say_if_sample(benchmark, args.data)
    if sample:
        result.protocol["sample_build"] = sample
    print(render_result(benchmark, result))
    if args.json and args.public:
        result.write(args.json, Policy.from_settings(Settings.from_env()))
        print(f"\nresult written to {args.json} as the Space would publish it (disclosure control applied)")
    elif args.json:
        args.json.write_text(json.dumps(_exact_record(result), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"\nresult written to {args.json} with exact values (--public: as the Space would publish it)")
    if args.per_item:
        with args.per_item.open("w", encoding="utf-8") as handle:
            for item_id, scores in (result.per_item or {}).items():
                handle.write(json.dumps({"id": item_id, **scores}) + "\n")
        print(f"per-item scores (private) written to {args.per_item}")
    return 0


# Start-up cost of a one-shot command (`python -m leaderboard validate|score`).
#
# pyarrow asks "is this a pandas object?" whenever it converts a Python value (`pa.array`, a scalar in
# `pc.equal(x, "")`, `pc.fill_null(x, -1)` ...) and, to answer, imports pandas on the first conversion:
# 0.3-0.9 s on 2 cores, as long as reading and scoring a 178k-line file. Scoring never hands pandas
# objects to pyarrow, so the one-shot commands let that probe find no pandas. pyarrow still imports
# pandas when asked for it explicitly (`to_pandas()` retries the import), so nothing breaks; only the
# "is it pandas?" test answers no. Processes that do use pandas (the Space) never call this.
def skip_pyarrow_pandas_probe() -> None:
    if "pandas" in sys.modules:
        return  # already paid for (or in use): nothing to save
    import pyarrow as pa

    blocker = _NoPandas()
    sys.meta_path.insert(0, blocker)  # `import pandas` raises ImportError for the probe below
    try:
        pa.array([0])  # the first conversion runs the probe once; pyarrow remembers "no pandas"
    finally:
        sys.meta_path.remove(blocker)


class _NoPandas:
    """An import finder that refuses pandas (a meta path entry; see importlib.abc.MetaPathFinder)."""

    def find_spec(self, name, path=None, target=None):
        if name == "pandas" or name.startswith("pandas."):
            raise ImportError("pandas is not needed here")
        return None

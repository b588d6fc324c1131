"""The scoring contract in one call: validate a prediction file against a built dataset, then score."""
from __future__ import annotations

from pathlib import Path

from . import registry
from ..intake.answer_key import AnswerKey, load_answer_key
from .benchmark import Benchmark, ScoringContext
from . import memo
from ..intake.prediction_files import MAX_FILE_BYTES, ValidationReport, validate
from .result import Result


def resolve(benchmark: Benchmark | str) -> Benchmark:
    """Front doors pass a name once; everything below works on the Benchmark object."""
    return registry.scorer(benchmark) if isinstance(benchmark, str) else benchmark


def load_key(benchmark: Benchmark, data: Path, answers: Path | None = None) -> AnswerKey:
    return load_answer_key(Path(data), list(benchmark.configs), benchmark.id_column, list(benchmark.answer_columns),
                           [*benchmark.strata_columns, *benchmark.context_columns], answers=answers,
                           split=benchmark.split)


def validate_file(benchmark: Benchmark | str, predictions: Path, data: Path, answers: Path | None = None,
                  max_bytes: int = MAX_FILE_BYTES, key: AnswerKey | None = None,
                  other_ids: dict[str, frozenset[str]] | None = None) -> tuple[ValidationReport, AnswerKey]:
    """`other_ids` (benchmark name -> its ids) lets the report say "this looks like a <benchmark> file"."""
    from ..intake.file_hints import IdHints, add_format_hints

    benchmark = resolve(benchmark)
    key = key or load_key(benchmark, data, answers)
    ids = key.table.column(key.id_column)
    hints = IdHints(ids, other_ids)
    report = validate(Path(predictions), benchmark.schema, ids, max_bytes=max_bytes, foreign_id_hint=hints)
    add_format_hints(report, Path(predictions))
    if (wrong := hints.file_issue(report.rows_read)) is not None:
        report.issues.insert(0, wrong)
    if not any(i.line is None and i.severity == "error" for i in report.issues):  # the file was readable
        report.issues.extend(benchmark.extra_issues(Path(predictions), key, report))
    optional = benchmark.optional_ids(key)
    if optional is not None and len(optional):
        _discount_optional(report, key, optional)
    return report, key


def _discount_optional(report, key: AnswerKey, optional) -> None:
    """Coverage and the missing-items warning count required items only."""
    import pyarrow.compute as pc

    from ..intake.prediction_files import add_missing_warning

    ids = key.table.column(key.id_column)
    required = len(ids) - len(optional)
    if report.table is not None and report.table.num_rows:
        report.optional_valid = int(pc.sum(pc.is_in(report.table.column("id"), value_set=optional)).as_py() or 0)
    report.expected_ids = required
    report.missing_ids = required - (report.n_valid - report.optional_valid)
    add_missing_warning(report, required)


def score_file(benchmark: Benchmark | str, predictions: Path, data: Path, context: ScoringContext | None = None,
               answers: Path | None = None, key: AnswerKey | None = None,
               report: ValidationReport | None = None) -> tuple[ValidationReport, Result]:
    """Validate (unless the caller already did: pass its `report`) then score; invalid lines are left out
    (their items count as wrong) and reported."""
    benchmark = resolve(benchmark)
    if report is None:
        report, key = validate_file(benchmark, predictions, data, answers, key=key)
    key = key or load_key(benchmark, data, answers)
    context = context or ScoringContext()
    if context.data_path is None:
        context.data_path = Path(data)
    try:
        with memo.active(context.cache_dir):  # a rescore reads back what it would recompute (memo.py)
            result = benchmark.score(key, report, context)
    finally:  # the end of a submission: its new judge verdicts go to the shared repo now (judge/shared.py)
        for name in ("judge", "judge_2", "letter_reader"):
            publish = getattr(context.service(name), "publish", None)
            if publish is not None:
                publish()
    result.protocol["validation"] = {"errors": len(report.errors), "warnings": len(report.warnings)}
    return report, result

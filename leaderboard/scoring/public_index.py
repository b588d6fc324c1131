"""Validation without the answer key (hidden keys, the EvalAI way).

A Space run with LEADERBOARD_WORKER=external holds only the public dataset. It still checks an upload
against what the public rows say: every id exists, each field has the right shape, and letters stay
within the item's options where the public rows carry the option count. Checks that need the answer
fields run again on the worker, which holds the key, before anything is scored.
"""
from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from ..intake.answer_key import ANSWERS_SUFFIX, AnswerKey, AnswerKeyError, MissingConfig, config_files
from .benchmark import Benchmark
from ..intake.prediction_files import MAX_FILE_BYTES, ValidationReport, validate

KEY_CHECKS_LATER = ("checks that need the answer key (if any) run on the scoring worker; a problem found there "
                    "marks the submission failed, it is never scored silently")


def _small_columns(schema: pa.Schema) -> list[str]:
    """Every public column except media (image bytes are never read for validation)."""
    return [f.name for f in schema if "binary" not in str(f.type)]


def load_public_index(benchmark: Benchmark, data: Path) -> AnswerKey:
    """The public rows of every declared config (ids, strata, option counts...), no answer fields; shaped
    like an AnswerKey so the generic validator and the benchmark's own checks can read it."""
    data = Path(data)
    tables, present = [], []
    for config in benchmark.configs:
        try:
            files = config_files(data, config, benchmark.split)
        except MissingConfig:
            if len(benchmark.configs) == 1:
                raise
            continue
        parts = [pq.read_table(p, columns=_small_columns(pq.read_schema(p))) for p in files]
        tables.append(pa.concat_tables(parts, promote_options="default"))
        present.append(config)
    if not tables:
        raise AnswerKeyError(f"{data} has none of the configs {', '.join(benchmark.configs)}")
    if len(benchmark.configs) > 1:
        tables = [t.append_column("config", pa.array([c] * t.num_rows, pa.string())) for t, c in zip(tables, present)]
    table = pa.concat_tables(tables, promote_options="default")
    if benchmark.id_column not in table.column_names:
        raise AnswerKeyError(f"{data} lacks the id column {benchmark.id_column!r}")
    for column in benchmark.answer_columns:  # held out: present but empty, so checks that only align rows run
        if column not in table.column_names:
            table = table.append_column(column, pa.nulls(table.num_rows, pa.string()))
    return AnswerKey(benchmark.id_column, table, f"{data} (public rows only)", "public")


def validate_public(benchmark: Benchmark, predictions: Path, data: Path,
                    max_bytes: int = MAX_FILE_BYTES) -> ValidationReport:
    index = load_public_index(benchmark, data)
    report = validate(Path(predictions), benchmark.schema, index.table.column(index.id_column), max_bytes=max_bytes)
    if not any(i.line is None and i.severity == "error" for i in report.issues):  # the file was readable
        try:  # a benchmark's own checks run when the public rows carry what they read
            report.issues.extend(benchmark.extra_issues(Path(predictions), index, report))
        except KeyError:  # they read an answer column: the worker runs them with the key
            pass
    optional = _optional(benchmark, index)
    if optional is not None and len(optional):
        from .score_file import _discount_optional

        _discount_optional(report, index, optional)
    return report


def _optional(benchmark: Benchmark, index: AnswerKey):
    try:
        return benchmark.optional_ids(index)
    except KeyError:
        return None


def has_answer_key(benchmark: Benchmark, data: Path) -> bool:
    """True when the answer fields are in the public rows or in a `-answers` folder beside them."""
    data = Path(data)
    if data.with_name(data.name + ANSWERS_SUFFIX).is_dir():
        return True
    try:
        files = config_files(data, benchmark.configs[0], benchmark.split)
    except AnswerKeyError:
        return False
    return any(c in pq.read_schema(files[0]).names for c in benchmark.answer_columns)

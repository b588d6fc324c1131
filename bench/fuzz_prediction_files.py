"""Shared body of the prediction-file fuzzers (bench/fuzz_jsonl.py, fuzz_csv.py, fuzz_json.py, fuzz_parquet.py):
the input is written as an upload with the format's suffix and validated by the Space's and the CLI's reader
(`prediction_files.validate`, columnar path first, then line by line); a report must come back, never an
exception, with every issue naming a line or the file."""
from __future__ import annotations

from pathlib import Path

from fuzz_harness import instrumented, scratch_folder

with instrumented():
    from leaderboard.intake.prediction_files import FieldSpec, PredictionSchema, validate

SCHEMA = PredictionSchema(
    fields=(FieldSpec("diagnoses", "string_list", max_items=100, scored_items=10), FieldSpec("response", "string"),
            FieldSpec("answer", "choice", choices=("A", "B", "C", "D", "E")),
            FieldSpec("confidence", "number", minimum=0, maximum=1)),
    one_of=("diagnoses", "response", "answer"), optional_metadata=("model", "notes"))
IDS = [f"S{k:04d}" for k in range(1, 11)] + ["mcq-0", "100", "open-3"]
FOLDER = scratch_folder("fuzz-predictions-")
MAX_BYTES = 1_000_000


def check(data: bytes, suffix: str) -> None:
    path = FOLDER / f"upload{suffix}"
    path.write_bytes(data)
    for columnar in (True, False):
        report = validate(path, SCHEMA, IDS, max_bytes=MAX_BYTES, columnar=columnar)
        rendered = report.render()
        if not rendered or report.n_valid > len(IDS):
            raise AssertionError(f"report without a summary or with more valid rows than ids: {rendered[:200]}")
        if not data.strip() and report.ok:
            raise AssertionError("an empty file was accepted")

"""One example prediction line per benchmark, for the Submit tab (from the benchmark's shipped example file,
else built from its prediction schema)."""
from __future__ import annotations

import json

from ..scoring.benchmark import Benchmark
from .store import SUBMISSIONS_DIR

PLACEHOLDERS = {"string": "model output text", "string_list": ["first diagnosis", "second diagnosis"], "number": 0.5}


def example_line(bench: Benchmark) -> str:
    shipped = SUBMISSIONS_DIR / bench.name / "example_predictions.jsonl"
    if shipped.is_file():
        with shipped.open(encoding="utf-8") as handle:
            for line in handle:
                if line.strip():
                    return json.dumps(json.loads(line), ensure_ascii=False)
    row = {bench.schema.id_field: "<item id>"}
    fields = [f for f in bench.schema.fields if f.required or f.name in (bench.schema.one_of or ())[:1]]
    for spec in fields:
        row[spec.name] = (spec.choices[0] if spec.kind == "choice" and spec.choices else PLACEHOLDERS.get(spec.kind, ""))
    return json.dumps(row, ensure_ascii=False)

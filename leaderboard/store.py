"""Result records on disk: the paper rows shipped in `submissions/` plus scored uploads in a store folder."""
from __future__ import annotations

import json
from pathlib import Path

from .result import Result

SUBMISSIONS_DIR = Path(__file__).resolve().parent.parent / "submissions"


def load_records(benchmark: str, roots: list[Path] | None = None) -> list[Result]:
    """Every `*.json` result record for `benchmark` under the given roots (default: submissions/)."""
    records = []
    for root in roots or [SUBMISSIONS_DIR]:
        folder = Path(root) / benchmark
        for path in sorted(folder.rglob("*.json")):
            data = json.loads(path.read_text(encoding="utf-8"))
            if data.get("benchmark") == benchmark and "metrics" in data:
                records.append(Result.from_dict(data))
    return records

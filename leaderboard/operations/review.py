"""Submissions held for a maintainer: text that seems to address the LLM judge (a suspected prompt
injection, `judge.safety`) puts a submission in `needs review` instead of the scoring queue. The user only
ever sees a neutral message; what matched is kept in the private queue record for the maintainer, who
decides with `python -m leaderboard review` (review_cli.py)."""
from __future__ import annotations

from ..scoring.judge.safety import injection_kinds

NEEDS_REVIEW = "needs review"
NEUTRAL_MESSAGE = "held for a routine check by a maintainer before scoring; no action is needed from you"
SHOWN_IDS = 20


def suspected_injections(benchmark, report) -> dict[str, list[str]]:
    """id -> names of the matching injection patterns, over every text field of the valid predictions.
    Only benchmarks that send text to an LLM judge are checked (elsewhere no judge reads it)."""
    if "judge" not in getattr(benchmark, "needs", ()):
        return {}
    fields = [f.name for f in benchmark.schema.fields if f.kind in ("string", "string_list")]
    found: dict[str, list[str]] = {}
    for item_id, row in _rows(report, fields):
        for name in fields:
            value = row.get(name)
            texts = value if isinstance(value, list) else [value]
            for text in texts:
                if isinstance(text, str) and text:
                    kinds = injection_kinds(text)
                    if kinds:
                        found.setdefault(str(item_id), []).extend(k for k in kinds if k not in found.get(str(item_id), []))
    return found


def _rows(report, fields):
    table = getattr(report, "table", None)
    if table is not None:
        present = [f for f in fields if f in table.column_names]
        ids = table.column("id").to_pylist()
        columns = {f: table.column(f).to_pylist() for f in present}
        for k, item_id in enumerate(ids):
            yield item_id, {f: columns[f][k] for f in present}
    else:
        yield from (report.valid or {}).items()


def review_note(found: dict[str, list[str]]) -> dict:
    """What the maintainer sees in the private queue record."""
    kinds = sorted({k for names in found.values() for k in names})
    return {"suspected_injection_items": len(found), "ids": sorted(found)[:SHOWN_IDS], "patterns": kinds}

"""Hints that turn a validation report into a fix: "did you mean <id>?", "this looks like a <benchmark> file",
and the two format slips people make most (a CSV list cell that is not a JSON array; single-quoted JSON).

Nothing here reads an answer: ids are public (they are in the released dataset)."""
from __future__ import annotations

import re2
from collections import Counter
from dataclasses import replace
from itertools import islice
from pathlib import Path

from .prediction_files import Issue, ValidationReport

MAX_FUZZY = 20  # unknown ids matched against the key (the report shows only the first issues anyway)
SINGLE_QUOTED = re2.compile(r"""^\s*[\[{]\s*'|'\s*:\s*|:\s*'""")
CSV_LIST_HINT = ('in CSV a list goes in one cell as a JSON array with double quotes, e.g. '
                 '"[""first diagnosis"", ""second diagnosis""]"')
QUOTE_HINT = "single quotes? JSON needs double quotes, e.g. {\"id\": \"...\"}"


class IdHints:
    """The `foreign_id_hint` callback of `prediction_files.validate`: for an unknown id, the other benchmark it
    belongs to, else the closest known id. Counts what it saw for the file-level hint."""

    def __init__(self, expected_ids, others: dict[str, frozenset[str]] | None = None):
        self._expected_source = expected_ids  # a list or an Arrow array; made a list only when needed
        self._expected: list[str] | None = None
        self.others = others or {}
        self.unknown = 0
        self.foreign: Counter = Counter()
        self._fuzzy = 0

    def __call__(self, item_id: str) -> str | None:
        self.unknown += 1
        for name, ids in self.others.items():
            if item_id in ids:
                self.foreign[name] += 1
                return f"a {name} id"
        if self._fuzzy >= MAX_FUZZY or not self.expected:
            return None
        self._fuzzy += 1
        from rapidfuzz import fuzz, process

        match = process.extractOne(item_id, self.expected, scorer=fuzz.ratio, score_cutoff=75)
        if match is None:
            stripped = item_id.strip().strip("'\"").upper()
            same = next((i for i in self.expected if i.upper() == stripped), None)
            return f"did you mean {same!r}?" if same else None
        return f"did you mean {match[0]!r}?"

    @property
    def expected(self) -> list[str]:
        if self._expected is None:
            source = self._expected_source
            self._expected = [str(v) for v in (source.to_pylist() if hasattr(source, "to_pylist") else source)]
        return self._expected

    def file_issue(self, rows_read: int) -> Issue | None:
        """'This looks like a <benchmark> file' when most lines carry another benchmark's ids."""
        if not self.foreign:
            return None
        name, count = self.foreign.most_common(1)[0]
        if count * 2 <= max(rows_read, 1):
            return None
        return Issue(None, None, f"this looks like a {name} file: {count} of {rows_read} ids are {name} ids. "
                                 f"Choose {name} as the benchmark (or check that you exported the right run).")


def add_format_hints(report: ValidationReport, path: Path, limit: int = 50) -> None:
    """Append a fix to the first `limit` JSON-syntax and CSV-list issues (re-reading only those lines)."""
    path = Path(path)
    suffix = path.suffix.lower()
    targets = list(islice((i for i in report.issues if i.line is not None and (
        i.message.startswith("not valid JSON") or (suffix == ".csv" and "got a single string" in i.message))), limit))
    if not targets:
        return
    lines = _lines_of(path, {i.line for i in targets})
    fixed = {}
    for issue in targets:
        text = lines.get(issue.line, "")
        hint = None
        if issue.message.startswith("not valid JSON"):
            if SINGLE_QUOTED.search(text):
                hint = QUOTE_HINT
        elif "['" in text or "', '" in text:
            hint = "a Python list with single quotes? " + CSV_LIST_HINT
        else:
            hint = CSV_LIST_HINT
        if hint:
            fixed[id(issue)] = replace(issue, message=f"{issue.message} ({hint})")  # issues are frozen
    report.issues = [fixed.get(id(i), i) for i in report.issues]


def _lines_of(path: Path, wanted: set[int]) -> dict[int, str]:
    """The first 2,000 characters of each wanted line (split and cut as bytes: a line may be 100 MB)."""
    from .line_reader import lines, text_start

    found: dict[int, str] = {}
    last = max(wanted)
    try:
        raw = path.read_bytes()
    except OSError:
        return found
    for line in lines(raw, text_start(raw)):
        if line.number in wanted:
            found[line.number] = raw[line.start:min(line.after, line.start + 8000)].decode("utf-8", "replace")[:2000]
        if line.number >= last:
            break
    return found


def dataset_ids(folder: Path, id_column: str) -> frozenset[str]:
    """Ids of a built dataset (public Parquet shards, the id column only)."""
    import pyarrow.parquet as pq

    shards = sorted(Path(folder).rglob("*.parquet"))  # data/ for one config, <config>/ for several
    ids: set[str] = set()
    for shard in shards:
        if id_column in pq.read_schema(shard).names:
            ids.update(str(v) for v in pq.read_table(shard, columns=[id_column]).column(0).to_pylist() if v is not None)
    return frozenset(ids)

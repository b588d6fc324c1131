"""Records of a release file that is either one JSON array of objects or JSON Lines, each record with
the line it starts on (for located problems). Benchmark-blind."""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Iterator

from .errors import ProblemLog


def iter_records(path: Path, file: str, log: ProblemLog) -> Iterator[tuple[int, int | None, Any]]:
    """(line, record number or None for JSONL, parsed record) from a JSON array or a JSONL file."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        log.add(file, f"file is not valid UTF-8 ({exc.reason} at byte {exc.start})")
        return
    if text.lstrip().startswith("["):
        yield from _array_records(text, file, log)
        return
    for line_no, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            yield line_no, None, json.loads(line)
        except json.JSONDecodeError as exc:
            log.add(file, f"malformed JSON ({exc.msg} at column {exc.colno})", line=line_no)


_SPACE = re.compile(r"\s*")


def _array_records(text: str, file: str, log: ProblemLog) -> Iterator[tuple[int, int, Any]]:
    """Decode a JSON array element by element, so each record keeps its line number."""
    decoder = json.JSONDecoder()
    pos = _SPACE.match(text, 0).end() + 1  # past '['
    line, counted, record_no = 1, 0, 0
    while True:
        pos = _SPACE.match(text, pos).end()
        if pos < len(text) and text[pos] == "]":
            return
        line += text.count("\n", counted, pos)
        counted = pos
        try:
            record, pos = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            log.add(file, f"malformed JSON in record {record_no} ({exc.msg} at line {exc.lineno}, column {exc.colno}); "
                          "the rest of the file was not read", line=exc.lineno)
            return
        yield line, record_no, record
        record_no += 1
        pos = _SPACE.match(text, pos).end()
        if pos < len(text) and text[pos] == ",":
            pos += 1
        elif pos >= len(text) or text[pos] != "]":
            bad_line = text.count("\n", 0, pos) + 1
            log.add(file, f"malformed JSON after record {record_no - 1} (expected ',' or ']')", line=bad_line)
            return

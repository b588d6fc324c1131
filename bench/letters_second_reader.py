"""A second reader's labels beside a labelled set: how far the readers agree, and what the letter rule would read with
that reader answering only the rows the rule leaves unparseable (the measure behind a judge fallback for the tail).

BLIND is a labelled JSONL file as `letters_agreement.py` reads it (its `expected` is the first reader's label). LABELS
holds the second reader's labels, one JSON object per line, {"id": ..., "label": "B" or null}: the id is the line
number in BLIND (1-based), or "<set>-<line>" where <set> is the number in BLIND's file name (a file labelling only the
unparseable rows of several sets). A row the second reader did not label is not routed when the rule read it; when
the rule left it unparseable, the fallback answered nothing (right only when the first reader says none too).

    .venv/bin/python bench/letters_second_reader.py BLIND.jsonl LABELS.jsonl [LABELS2.jsonl ...] [--blind B2 --labels L2 ...]
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from leaderboard.scoring.letters import RULE_VERSION, parse_letter  # noqa: E402


@dataclass
class Tally:
    rows: int = 0
    rule: int = 0  # the rule agrees with the first reader
    combined: int = 0  # the rule, and the second reader where the rule read nothing, agree with the first reader
    routed: int = 0  # rows the rule left unparseable
    both_labelled: int = 0  # rows both readers labelled
    readers_agree: int = 0
    misses: dict = field(default_factory=dict)


def _set_number(path: Path) -> str:
    found = re.findall(r"\d+", path.stem)
    return found[-1] if found else ""


def second_labels(blind: Path, label_files: list[Path]) -> dict[int, str | None]:
    """Line number in `blind` -> the second reader's label, from every label file that names that set's rows."""
    number, out = _set_number(blind), {}
    for path in label_files:
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            row = json.loads(line)
            ident = str(row["id"])
            prefix, _, tail = ident.rpartition("-")
            if prefix and prefix != number:
                continue
            out[int(tail)] = row.get("label")
    return out


def measure(blind: Path, label_files: list[Path], tally: Tally) -> None:
    rows = [json.loads(line) for line in blind.read_text(encoding="utf-8").splitlines() if line.strip()]
    second = second_labels(blind, label_files)
    for n, row in enumerate(rows, 1):
        options = row.get("options")
        texts = [options.get(k, "") for k in row["letters"]] if isinstance(options, dict) else options
        got = parse_letter(row["text"], row.get("letters", "ABCDE"), texts)
        expected = row.get("expected")
        tally.rows += 1
        tally.rule += got == expected
        if n in second:
            tally.both_labelled += 1
            tally.readers_agree += second[n] == expected
        combined = got
        if got is None:
            tally.routed += 1
            combined = second.get(n)  # not labelled: the fallback answered nothing
        tally.combined += combined == expected
        if combined != expected:
            kind = ("fallback" if got is None else "rule") + (": a letter where none was meant" if expected is None
                                                              else ": no letter where one was meant" if combined is None
                                                              else ": the wrong letter")
            tally.misses[kind] = tally.misses.get(kind, 0) + 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pairs", nargs="+", type=Path, help="BLIND.jsonl LABELS.jsonl [LABELS ...], repeated after --")
    parser.add_argument("--set", nargs="+", action="append", type=Path, default=[], metavar="FILE",
                        help="another BLIND.jsonl and its label files")
    args = parser.parse_args(argv)
    groups = [args.pairs] + args.set
    tally = Tally()
    for group in groups:
        if len(group) < 2:
            parser.error("each set needs its BLIND file and at least one LABELS file")
        measure(group[0], group[1:], tally)
    pct = lambda k: f"{k}/{tally.rows} = {100 * k / tally.rows:.1f} %" if tally.rows else "0/0"  # noqa: E731
    print(f"{RULE_VERSION}: the rule agrees with the first reader on {pct(tally.rule)}")
    if tally.both_labelled:
        print(f"the readers agree on {tally.readers_agree}/{tally.both_labelled} rows both labelled")
    print(f"the rule, with the second reader on the {tally.routed} rows it leaves unparseable: {pct(tally.combined)}")
    for kind, count in sorted(tally.misses.items()):
        print(f"  {kind}: {count}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

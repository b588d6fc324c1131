"""Agreement of the letter rule with a careful reader on a labelled JSONL file of MCQ responses.

Each line: {"text": response, "options": [texts in letter order] or {"A": text, ...}, "letters": "ABCD",
"expected": "B" or null, "style": "..."}. Prints the agreement overall, on option-text styles, on rows the
reader left unparseable (null), per style, and every disagreement (so a miss can be read, not only counted).

    .venv/bin/python bench/letters_agreement.py FILE.jsonl [FILE2.jsonl ...] [--quiet]
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from leaderboard.scoring.letters import RULE_VERSION, parse_letter  # noqa: E402


def _options(case: dict) -> list[str] | None:
    options = case.get("options")
    if isinstance(options, dict):
        return [options.get(k, "") for k in case["letters"]]
    return options


def measure(path: Path, quiet: bool = False) -> tuple[int, int]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    total, agree = Counter(), Counter()
    misses = []
    for n, case in enumerate(rows, 1):
        got = parse_letter(case["text"], case.get("letters", "ABCDE"), _options(case))
        ok = got == case.get("expected")
        style = str(case.get("style", "?"))
        for key in ("all", f"style {style}", *(["option-text styles"] if "option-text" in style else []),
                    *(["reader: unparseable"] if case.get("expected") is None else [])):
            total[key] += 1
            agree[key] += ok
        if not ok:
            misses.append((n, case.get("expected"), got, style, case["text"]))
    print(f"{path} ({RULE_VERSION}): {agree['all']}/{total['all']} = {100 * agree['all'] / max(total['all'], 1):.1f} %")
    for key in sorted(total):
        if key != "all":
            print(f"  {key}: {agree[key]}/{total[key]}")
    if not quiet:
        for n, expected, got, style, text in misses:
            print(f"  miss line {n} [{style}] reader {expected} rule {got}: {text[:200]!r}")
    return agree["all"], total["all"]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--quiet", action="store_true", help="counts only, no disagreements listed")
    args = parser.parse_args(argv)
    for path in args.files:
        measure(path, args.quiet)
    return 0


if __name__ == "__main__":
    sys.exit(main())

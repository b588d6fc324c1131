"""Fuzzes every judge-reply parser (benchmarks/*/judging.py): a reply is parsed or refused with JudgeParseError,
nothing else; see bench/fuzz_harness.py. The first byte picks the parser."""
from __future__ import annotations

import sys

from fuzz_harness import fuzz_main, instrumented

with instrumented():
    from benchmarks.clinmm.judging import matching_parser, parse_accuracy_xml, parse_facts
    from benchmarks.medcmr.judging import parse_scores
    from benchmarks.medrealmm.judging import clean_response, parse_verdict
    from leaderboard.scoring.judge import JudgeParseError
    from leaderboard.scoring.judge.safety import redact

PARSERS = (parse_scores, parse_verdict, parse_accuracy_xml, parse_facts, matching_parser(3, 2), matching_parser(1, 4))


def one_input(data: bytes) -> None:
    if not data:
        return
    text = data[1:].decode("utf-8", "replace")
    if data[0] % 8 == 6:  # the candidate-side cleaners run on submitted text: think-stripping and the one filter
        clean_response(text)
        redact(text)
        return
    parser = PARSERS[data[0] % len(PARSERS)]
    try:
        parsed = parser(text)
    except JudgeParseError:
        return
    if not isinstance(parsed, dict):
        raise AssertionError(f"{parser.__name__} returned {type(parsed).__name__}")


if __name__ == "__main__":
    sys.exit(fuzz_main("judge_replies", one_input))

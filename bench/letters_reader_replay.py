"""The letter rule with its reader (leaderboard/scoring/letter_reader.py) on labelled sets, through the product's own
path: the prompts the client really sends, its HTTP protocol, its verdict parser and grounding checks.

Two steps, so that the reader can be any model, including one that cannot sit behind an endpoint here:

    # 1. the exact prompts the product would send for the rows the rule leaves unparseable (no labels in them)
    .venv/bin/python bench/letters_reader_replay.py export BLIND.jsonl [BLIND2.jsonl ...] --out prompts.jsonl
    # 2. a reader answers each prompt ({"id": ..., "letter": "B" or null, "evidence": "..."} per line); the answers
    #    are replayed by an OpenAI-compatible server on 127.0.0.1 to the real client, and the agreement printed
    .venv/bin/python bench/letters_reader_replay.py measure BLIND.jsonl [...] --answers answers.jsonl [...]

BLIND files are labelled JSONL as `letters_agreement.py` reads them ({"text", "options", "letters", "expected"}).
A prompt's id is "<set>-<line>" (<set>: the last number in the BLIND file's name). An answer the client refuses
(a quote not in the response, a letter beyond the options) is asked again and, replayed unchanged, fails: a
failure is counted as no letter and reported.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

from fake_openai_server import FakeOpenAIServer, marks, request_text  # noqa: E402
from leaderboard.scoring.judge import Judge, JudgeConfig, item_key_id  # noqa: E402
from leaderboard.scoring.letter_reader import options_block, read_letters  # noqa: E402
from leaderboard.publishing.tie_groups import wilson  # noqa: E402
from leaderboard.scoring.letters import RULE_VERSION, bounded, parse_letter  # noqa: E402
from letters_second_reader import _set_number  # noqa: E402  (the set number in a BLIND file's name)


def _wilson(k: int, n: int) -> tuple[float, float]:
    return wilson(100 * k / n, n) if n else (0.0, 0.0)


def routed_rows(paths: list[Path]) -> list[dict]:
    """Every labelled row with the rule's letter; `routed` marks the rows the rule leaves unparseable."""
    rows = []
    for path in paths:
        number = _set_number(path)
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            row = json.loads(line)
            letters = row.get("letters", "ABCDE")
            options = row.get("options")
            texts = [options.get(k, "") for k in letters] if isinstance(options, dict) else list(options or ())
            rule = parse_letter(row["text"], letters, texts)
            rows.append({"id": f"{number}-{n}", "set": number, "text": row["text"], "options": texts,
                         "letters": letters, "expected": row.get("expected"), "rule": rule, "routed": rule is None})
    return rows


def _key(body: dict) -> tuple[str, str]:
    found = marks(body)
    return found["criterion_id"], found["candidate"]


def _reader(server: FakeOpenAIServer, cache: Path) -> Judge:
    return Judge(JudgeConfig(base_url=server.base_url, model="replayed-reader", cache_path=cache / "reader.sqlite",
                             attempts=2, backoff_base=0.01, backoff_max=0.02, budget_seconds=0, stall_seconds=0))


def _ask(rows: list[dict], responder) -> tuple[FakeOpenAIServer, object]:
    routed = [r for r in rows if r["routed"]]
    with tempfile.TemporaryDirectory() as cache, FakeOpenAIServer(responder) as server:
        outcome = read_letters(_reader(server, Path(cache)), list(range(len(routed))), [r["text"] for r in routed],
                               [r["options"] for r in routed], [r["letters"] for r in routed])
    return server, outcome


def export(paths: list[Path], out: Path) -> int:
    rows = routed_rows(paths)
    routed = [r for r in rows if r["routed"]]
    server, _ = _ask(rows, lambda body: json.dumps({"letter": None}))
    by_key = {}
    for body in server.requests:
        system, user = request_text(body)
        by_key.setdefault(_key(body), (system, user))
    with out.open("w", encoding="utf-8") as handle:
        for row in routed:
            system, user = by_key[(item_key_id(options_block(row["letters"], row["options"])), bounded(row["text"]))]
            handle.write(json.dumps({"id": row["id"], "system": system, "user": user}, ensure_ascii=False) + "\n")
    print(f"{len(routed)} of {len(rows)} rows left unparseable by {RULE_VERSION}: their prompts are in {out}")
    return 0


def measure(paths: list[Path], answer_paths: list[Path]) -> int:
    rows = routed_rows(paths)
    answers = {}
    for answers_path in answer_paths:
        for line in answers_path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                answer = json.loads(line)
                answers[str(answer["id"])] = answer
    replay = {}
    for row in rows:
        if row["routed"] and row["id"] in answers:
            key = (item_key_id(options_block(row["letters"], row["options"])), bounded(row["text"]))
            replay[key] = {"letter": answers[row["id"]].get("letter"), "evidence": answers[row["id"]].get("evidence") or ""}
    server, outcome = _ask(rows, lambda body: json.dumps(replay.get(_key(body), {"letter": None}), ensure_ascii=False))
    routed = [r for r in rows if r["routed"]]
    for k, row in enumerate(routed):
        row["reader"] = outcome.letters.get(k)
        row["failed"] = k in outcome.failed
    sets: dict[str, list[int]] = {}
    for row in rows:
        final = row["reader"] if row["routed"] else row["rule"]
        tally = sets.setdefault(row["set"], [0, 0, 0, 0])
        tally[0] += 1
        tally[1] += row["rule"] == row["expected"]
        tally[2] += final == row["expected"]
        tally[3] += row["routed"]
        row["final"] = final
    total = [sum(t[i] for t in sets.values()) for i in range(4)]
    for name, (n, rule, final, routed_n) in sorted(sets.items()):
        print(f"set {name}: {RULE_VERSION} alone {rule}/{n}; with the reader on its {routed_n} unparseable rows {final}/{n}")
    n = total[0]
    low, high = _wilson(total[2], n)
    print(f"all: {RULE_VERSION} alone {total[1]}/{n} = {100 * total[1] / n:.1f} % (Wilson {_wilson(total[1], n)[0]:.1f}-"
          f"{_wilson(total[1], n)[1]:.1f}); with the reader {total[2]}/{n} = {100 * total[2] / n:.1f} % (Wilson "
          f"{low:.1f}-{high:.1f}); routed {total[3]} ({100 * total[3] / n:.1f} %), reader failures {len(outcome.failed)} "
          f"{dict(outcome.failure_kinds)}, HTTP requests {server.calls()}")
    kinds: dict[str, int] = {}
    for row in rows:
        if row["final"] != row["expected"]:
            who = "reader" if row["routed"] else "rule"
            what = ("a letter where none was meant" if row["expected"] is None else "no letter where one was meant"
                    if row["final"] is None else "the wrong letter")
            kinds[f"{who}: {what}"] = kinds.get(f"{who}: {what}", 0) + 1
    for kind, count in sorted(kinds.items()):
        print(f"  {kind}: {count}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step", choices=("export", "measure"))
    parser.add_argument("blind", nargs="+", type=Path)
    parser.add_argument("--out", type=Path, help="export: where the prompts go")
    parser.add_argument("--answers", type=Path, nargs="+", help="measure: the reader's answers (one or more files)")
    args = parser.parse_args(argv)
    if args.step == "export":
        if args.out is None:
            parser.error("export needs --out")
        return export(args.blind, args.out)
    if args.answers is None:
        parser.error("measure needs --answers")
    return measure(args.blind, args.answers)


if __name__ == "__main__":
    sys.exit(main())

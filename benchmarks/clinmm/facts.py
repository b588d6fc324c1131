"""Freeze ClinMM-Bench's reference atomic facts: decompose each case's English reference reasoning once
with the judge (the paper's Supplementary I1 prompt) and append them to `reference_facts.jsonl` in the
release folder, which the builder then reads. Cases that already have facts (in their case file or in
the sidecar) are never re-extracted, so the facts stay frozen across runs and judges.

    JUDGE_BASE_URL=... JUDGE_MODEL=... python -m benchmarks.clinmm.facts --source DIR

A case whose extraction fails is reported and left out of the sidecar; rerun to retry it.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from datetime import datetime, timezone
from pathlib import Path

from .taxonomy import SIDECAR


def _cases_needing_facts(source: Path, existing: set[str]) -> tuple[list[tuple[str, str]], list[str]]:
    """(case_id, English reasoning) of cases without facts, and problems found on the way."""
    todo, problems = [], []
    for path in sorted((source / "cases").glob("*.json")):
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError) as exc:
            problems.append(f"cases/{path.name}: cannot read ({type(exc).__name__}); fix it and rerun")
            continue
        case_id = str(record.get("case_id") or path.stem)
        if record.get("reference_facts") or case_id in existing:
            continue
        reasoning = (record.get("diagnostic_reasoning") or {}).get("english")
        if not isinstance(reasoning, str) or not reasoning.strip():
            problems.append(f"cases/{path.name}: no diagnostic_reasoning.english to decompose")
            continue
        todo.append((case_id, reasoning))
    return todo, problems


def _existing(sidecar: Path) -> set[str]:
    if not sidecar.is_file():
        return set()
    ids = set()
    for line in sidecar.read_text(encoding="utf-8").splitlines():
        if line.strip():
            try:
                ids.add(str(json.loads(line)["case_id"]))
            except (ValueError, KeyError, TypeError):
                continue  # the builder reports malformed lines with their number
    return ids


def extract_reference_facts(source_dir: Path, judge, progress: bool = False) -> dict:
    """Extract facts for every case lacking them and append them to SOURCE/reference_facts.jsonl.
    Returns {"extracted": n, "skipped": n, "failed": [case ids], "problems": [...]}."""
    from .judging import EXTRACTION_PROMPT, FACTS_SCHEMA, PROMPTS, extraction_call, parse_facts
    from leaderboard.scoring.judge import load_prompt

    source = Path(source_dir)
    sidecar = source / SIDECAR
    existing = _existing(sidecar)
    todo, problems = _cases_needing_facts(source, existing)
    calls = [extraction_call(case_id, reasoning) for case_id, reasoning in todo]
    verdicts = judge.run(calls, parse_facts, schema=FACTS_SCHEMA, progress=progress, desc="reference facts")
    prompt = load_prompt(EXTRACTION_PROMPT, folder=PROMPTS)
    extractor = {"model": judge.config.model, "prompt": prompt.id, "prompt_sha": prompt.sha,
                 "extracted_at": datetime.now(timezone.utc).date().isoformat()}
    lines, failed = [], []
    for (case_id, _), verdict in zip(todo, verdicts):
        if verdict.ok and verdict.value["facts"]:
            lines.append(json.dumps({"case_id": case_id, "facts": verdict.value["facts"], "extractor": extractor},
                                    ensure_ascii=False))
        else:
            failed.append(case_id)
    if lines:
        _append(sidecar, lines)
    return {"extracted": len(lines), "skipped": len(existing), "failed": failed, "problems": problems}


def _append(sidecar: Path, lines: list[str]) -> None:
    """Rewrite the sidecar with the new lines added, atomically (an interrupted run leaves the old file)."""
    old = sidecar.read_text(encoding="utf-8") if sidecar.is_file() else ""
    if old and not old.endswith("\n"):
        old += "\n"
    tmp = sidecar.with_name(sidecar.name + ".partial")
    tmp.write_text(old + "\n".join(lines) + "\n", encoding="utf-8")
    os.replace(tmp, sidecar)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.clinmm.facts", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source", type=Path, required=True, help="the ClinMM release folder (with cases/)")
    parser.add_argument("--judge-cache", type=Path, default=Path(".cache") / "judge_cache.sqlite")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    from leaderboard.scoring.judge import NO_JUDGE, Judge, JudgeConfig

    if not (args.source / "cases").is_dir():
        print(f"error: {args.source} has no cases/ folder", file=sys.stderr)
        return 2
    config = JudgeConfig.from_env(cache_path=args.judge_cache)
    if config is None:
        print(f"error: {NO_JUDGE}", file=sys.stderr)
        return 2
    judge = Judge(config)
    try:
        summary = extract_reference_facts(args.source, judge, progress=not args.quiet)
    finally:
        judge.close()
    for problem in summary["problems"]:
        print(f"problem: {problem}", file=sys.stderr)
    print(f"{summary['extracted']} case(s) extracted into {args.source / SIDECAR}; {summary['skipped']} already had "
          f"facts in the sidecar")
    if summary["failed"]:
        print(f"error: extraction failed for {len(summary['failed'])} case(s): {', '.join(summary['failed'][:20])}; "
              "rerun to retry", file=sys.stderr)
        return 1
    return 1 if summary["problems"] else 0


if __name__ == "__main__":
    raise SystemExit(main())

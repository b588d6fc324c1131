"""Mutation score of the scoring core: killed / survived / timeout per module, from mutmut's results.

mutmut (pinned in requirements-dev.txt, configured in setup.cfg's [mutmut] section) copies the project
into mutants/, plants one small bug at a time in the core modules (an operator, a constant, a
comparison, a string...) and runs the tests that reach the mutated function. A mutant the tests
catch is killed; one they don't is a surviving bug the suite would let through. Survivors that cannot
change behaviour (an equivalent mutant) are listed with the reason in bench/mutation_equivalents.md and
counted apart.

    .venv/bin/python bench/mutation_report.py                  # read mutants/ and print the table
    .venv/bin/python bench/mutation_report.py --run            # run mutmut first (nice, 1 child, narrow tests)
    .venv/bin/python bench/mutation_report.py --run "leaderboard.scoring.metrics.*"   # one part of the core
    .venv/bin/python bench/mutation_report.py --survivors      # also list the surviving mutants

Score = (killed + timeout) / (checked - equivalent), the share of the plantable bugs the suite catches.
The goal is >= 90% on the whole core. Runs are incremental: mutmut re-tests only changed functions.
"""
from __future__ import annotations

import argparse
import fnmatch
import json
import os
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EQUIVALENTS = ROOT / "bench" / "mutation_equivalents.md"
GOAL = 90.0

# The core, as modules mutmut mutates (setup.cfg only_mutate) and, for modules that hold more than
# core code, the functions that belong to the core (glob on the mutant's function name).
CORE: dict[str, tuple[str, ...]] = {
    "leaderboard/scoring/metrics/*.py": ("*",),
    "leaderboard/scoring/letters.py": ("*",),
    "leaderboard/scoring/option_text.py": ("*",),
    "leaderboard/publishing/tie_groups.py": ("*",),
    "benchmarks/*/parsing.py": ("*",),
    "benchmarks/clinmm/metrics.py": ("*",),
    "leaderboard/intake/prediction_files.py": ("*",),
    "leaderboard/intake/prediction_files_columnar.py": ("*",),
    "leaderboard/operations/store.py": ("atomic_write", "LocalStore._write", "LocalStore.write_json", "LocalStore.write_bytes",
                             "LocalStore.save_result"),
    "leaderboard/publishing/tables.py": ("spreadsheet_safe", "export_csv", "export_json"),
    # issue 26 item 4 / issue 29 item 1: every module that decides what users see or what stays secret
    "leaderboard/privacy/disclosure.py": ("*",),
    "leaderboard/publishing/board.py": ("*",),
    "leaderboard/publishing/breakdowns.py": ("*",),
    "leaderboard/privacy/redact.py": ("*",),
    "leaderboard/scoring/judge/safety.py": ("*",),
    # the key functions only (one key, a batch of keys, an item's part); the storage layer is not core
    "leaderboard/scoring/judge/cache.py": ("judge_key", "judge_keys", "item_digest"),
    "leaderboard/intake/parquet_guard.py": ("*",),
    "leaderboard/scoring/isolation.py": ("*",),
    "leaderboard/operations/hub_queue.py": ("*",),
    "leaderboard/scoring/engine/*.py": ("*",),
}

# The narrowest tests that reach each module: mutmut runs, for every mutant, every selected test that called
# the mutated function, so the letter parser's mutants would also run the whole Med-CMR and X-PCR scoring
# suites (15-20 s a mutant on a loaded machine instead of 5). `narrow()` keeps, per module (mangled-name prefix),
# only the tests whose id contains one of these strings. Narrower means fewer kills, never more: the score is
# conservative. It edits mutants/mutmut-stats.json (the tests-per-function map of the last stats collection).
NARROW: dict[str, tuple[str, ...]] = {
    "leaderboard.scoring.letters.": ("tests/test_letters.py", "tests/parsing/"),
    "leaderboard.scoring.letter_windows.": ("tests/test_letters.py", "tests/parsing/"),
    "leaderboard.scoring.option_text.": ("tests/parsing/",),
    "leaderboard.scoring.metrics.rubric.": ("tests/test_metric_boundaries.py", "test_rubric_scores_pure_function_edges"),
    "leaderboard.scoring.metrics.calibration.": ("tests/test_metric_boundaries.py", "tests/test_bootstrap.py",
                                         "tests/benchmarks/xpcr/test_xpcr_metrics.py",
                                         "tests/benchmarks/xpcr/test_xpcr_uas_tiers.py"),
    "leaderboard.scoring.metrics.bootstrap.": ("tests/test_metric_boundaries.py", "tests/test_bootstrap.py",
                                       "tests/benchmarks/xpcr/test_xpcr_metrics.py", "tests/test_scoring_memo.py"),
    "leaderboard.publishing.tie_groups.": ("tests/test_ranking.py", "tests/test_tie_groups_paired.py",
                                "tests/test_metric_boundaries.py", "tests/test_tables_and_space.py"),
    "benchmarks.clinmm.metrics.": ("tests/test_metric_boundaries.py", "tests/benchmarks/clinmm/test_clinmm_scoring.py"),
    "leaderboard.intake.prediction_files_columnar.": ("tests/test_columnar_differential.py", "tests/test_predictions_validation.py",
                                               "tests/test_columnar_partial_coverage.py"),
    "leaderboard.intake.prediction_files.": ("tests/test_prediction_files_edges.py", "tests/test_predictions_validation.py"),
    # the disclosure sample checks, without X-PCR's (18 s: the test_disclosure.py X-PCR tests reach the same code)
    "leaderboard.privacy.disclosure.": ("tests/test_disclosure.py", "tests/test_kill_disclosure.py", "tests/test_engine.py",
                                "tests/test_breakdowns.py", "test_xpcr_sample_stage_cells",
                                "small_group[medcmr]", "small_group[clinmm]", "small_group[medrealmm]",
                                "small_group[medreamm]"),
    "leaderboard.publishing.board.": ("tests/test_board_filters.py", "tests/test_kill_board.py", "tests/test_ranking.py",
                           "tests/test_tables_and_space.py", "tests/test_profiles.py",
                                     "tests/test_result_shards.py", "tests/test_board_columns.py"),
    "leaderboard.publishing.breakdowns.": ("tests/test_breakdowns.py", "tests/test_kill_breakdowns.py",
                                           "tests/test_kill_breakdowns_labels.py",
                                "tests/test_store_breakdown_budget.py"),
    "leaderboard.privacy.redact.": ("tests/test_redact.py", "tests/test_kill_redact.py"),
    "leaderboard.scoring.judge.safety.": ("tests/test_injection_filter.py", "tests/test_kill_judge_safety.py",
                                  "tests/test_judge_cache_keys.py"),
    "leaderboard.scoring.judge.cache.": ("tests/test_judge_cache_keys.py", "tests/test_kill_judge_safety.py"),
    "leaderboard.intake.parquet_guard.": ("tests/test_parquet_pages.py", "tests/test_kill_parquet_guard.py",
                                   "tests/test_input_bounds.py"),
    "leaderboard.scoring.isolation.": ("tests/test_scoring_isolation.py", "tests/test_kill_isolation.py"),
    # the kill tests only (~50 ms each on one fake Hub per module); test_hub_queue.py (a fake Hub per test, ~9 s a
    # mutant) is left out, so the score is conservative
    "leaderboard.operations.hub_queue.": ("tests/test_kill_hub_queue.py", "tests/test_kill_hub_queue_outbox.py"),
    # the engine's own tests, and the benchmarks' scoring suites that drive every kind (coded, chains) through it
    "leaderboard.scoring.engine.": ("tests/test_engine.py", "tests/test_kill_engine.py", "tests/test_disclosure.py",
                                    "tests/test_items.py", "tests/benchmarks/xpcr/test_xpcr_metrics.py",
                                    "tests/benchmarks/xpcr/test_xpcr_scoring.py",
                                    "tests/benchmarks/clinmm/test_clinmm_scoring.py",
                                    "tests/benchmarks/medcmr/test_medcmr_scoring.py",
                                    "tests/benchmarks/medreamm/test_medreamm_scoring.py",
                                    "tests/benchmarks/medrealmm/test_medrealmm_scoring.py",
                                    "test_xpcr_sample_stage_cells", "small_group[medcmr]", "small_group[clinmm]",
                                    "small_group[medrealmm]", "small_group[medreamm]"),
}


# Tests left out of every narrowed module: each takes seconds (a whole submission through Service and a scoring
# child, or an X-PCR sample build) and faster tests reach the same code; on a loaded 2-core machine they made one
# mutant cost a minute.
SLOW = ("test_an_all_a_probe_shows_no_number", "test_held_out_public_values_are_keyed_noise",
        "small_group[xpcr]")


def narrow(mutants: Path) -> None:
    stats_path = mutants / "mutmut-stats.json"
    if not stats_path.exists():
        return  # the first run collects them; narrow before the next
    stats = json.loads(stats_path.read_text(encoding="utf-8"))
    tests = stats["tests_by_mangled_function_name"]
    for function, ids in tests.items():
        keep = next((k for prefix, k in NARROW.items() if function.startswith(prefix)), None)
        if keep is not None:
            tests[function] = [t for t in ids if any(k in t for k in keep) and not any(s in t for s in SLOW)]
    stats_path.write_text(json.dumps(stats), encoding="utf-8")


# mutmut's exit-code meanings (mutmut.stats.status_by_exit_code), repeated so that reading the results
# needs no mutmut import.
STATUS = {1: "killed", 3: "killed", 0: "survived", 36: "timeout", 24: "timeout", -24: "timeout", 152: "timeout",
          255: "timeout", None: "not checked", 5: "no tests", 33: "no tests", 34: "skipped", 37: "killed"}
COLUMNS = ("killed", "timeout", "survived", "equivalent", "no tests", "not checked", "other")


def function_of(key: str) -> str:
    """'leaderboard.operations.store.xǁLocalStoreǁ_write__mutmut_3' -> 'LocalStore._write'; 'pkg.mod.x_f__mutmut_1' -> 'f'."""
    name = key.rsplit(".", 1)[-1]
    name = re.sub(r"__mutmut_\d+$", "", name)
    if name.startswith("xǁ"):
        return ".".join(part for part in name[2:].split("ǁ") if part)
    return name[2:] if name.startswith("x_") else name


def equivalents() -> dict[str, str]:
    """Mutant name -> reason, from the table rows '| `name` | reason |' of bench/mutation_equivalents.md."""
    if not EQUIVALENTS.exists():
        return {}
    found = {}
    for line in EQUIVALENTS.read_text(encoding="utf-8").splitlines():
        m = re.match(r"\|\s*`([^`]+__mutmut_\d+)`\s*\|\s*(.+?)\s*\|\s*$", line)
        if m:
            found[m.group(1)] = m.group(2)
    return found


def core_module(path: str) -> str | None:
    return next((pattern for pattern in CORE if fnmatch.fnmatch(path, pattern)), None)


def collect(mutants: Path) -> tuple[dict[str, Counter], list[tuple[str, str]]]:
    """Per module: counts by status; and the list of (module, mutant) survivors not marked equivalent."""
    marked = equivalents()
    table: dict[str, Counter] = {}
    survivors = []
    for meta in sorted(mutants.rglob("*.py.meta")):
        path = meta.relative_to(mutants).as_posix()[: -len(".meta")]
        pattern = core_module(path)
        if pattern is None:
            continue
        data = json.loads(meta.read_text(encoding="utf-8"))
        for key, code in data.get("exit_code_by_key", {}).items():
            if not any(fnmatch.fnmatch(function_of(key), f) for f in CORE[pattern]):
                continue
            status = STATUS.get(code, "other")
            if status == "survived" and key in marked:
                status = "equivalent"
            table.setdefault(path, Counter())[status] += 1
            if status == "survived":
                survivors.append((path, key))
    return table, survivors


def score(counts: Counter) -> float | None:
    caught = counts["killed"] + counts["timeout"]
    judged = caught + counts["survived"]
    return None if judged == 0 else 100.0 * caught / judged


def print_table(table: dict[str, Counter]) -> Counter:
    width = max([len(p) for p in table] + [len("module"), len("core total")])
    print(f"{'module':<{width}}  " + "  ".join(f"{c:>11}" for c in COLUMNS) + "  score")
    total = Counter()
    for path, counts in sorted(table.items()):
        total.update(counts)
        s = score(counts)
        print(f"{path:<{width}}  " + "  ".join(f"{counts[c]:>11}" for c in COLUMNS) + f"  {'-' if s is None else f'{s:5.1f}%'}")
    s = score(total)
    print(f"{'core total':<{width}}  " + "  ".join(f"{total[c]:>11}" for c in COLUMNS) + f"  {'-' if s is None else f'{s:5.1f}%'}")
    return total


def run_mutmut(names: list[str], children: int) -> float:
    """`mutmut run` at low priority, on the narrowest tests; returns its wall time in seconds."""
    mutmut = Path(sys.executable).with_name("mutmut")
    if not mutmut.exists():
        sys.exit("mutmut is not installed: .venv/bin/python -m pip install -r requirements-dev.txt")
    narrow(ROOT / "mutants")
    start = time.monotonic()
    subprocess.run(["nice", "-n", "10", str(mutmut), "run", "--max-children", str(children), *names], cwd=ROOT,
                   check=False, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    return time.monotonic() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("names", nargs="*", help="mutant name globs passed to `mutmut run` (default: the whole core)")
    parser.add_argument("--run", action="store_true", help="run mutmut before reading its results")
    parser.add_argument("--children", type=int, default=1,
                        help="mutmut --max-children (default 1: a shared machine; more on an idle one)")
    parser.add_argument("--survivors", action="store_true", help="list the surviving mutants (mutmut show NAME)")
    args = parser.parse_args(argv)
    if args.run:
        seconds = run_mutmut(args.names, args.children)
        print(f"mutmut run: {seconds:.0f} s wall, {args.children} children, load {os.getloadavg()[0]:.1f}")
    mutants = ROOT / "mutants"
    if not mutants.is_dir():
        print("no mutants/ folder: run with --run first")
        return 1
    table, survivors = collect(mutants)
    if not table:
        print("no mutation results for the core yet: run with --run")
        return 1
    total = print_table(table)
    marked = equivalents()
    if marked:
        print(f"{len(marked)} mutants listed as equivalent in {EQUIVALENTS.relative_to(ROOT)}")
    if args.survivors:
        for path, key in survivors:
            print(f"survived: {key}")
    s = score(total)
    print(f"goal >= {GOAL:.0f}% killed: {'met' if s is not None and s >= GOAL else 'NOT met'}"
          f"{'' if not total['not checked'] else ' (some mutants not checked yet)'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Hostile and malformed input (issue 6): every case of tests/hostile/ gets a clear message or a flagged,
unharmed score; never a traceback, never a gold answer in a response, log line, record or export.

The corpus is written by tests/hostile/make_corpus.py; the large cases (an upload over the size limit,
10^6 lines, a 20 M-character field) are generated here into tmp_path and timed.
"""
from __future__ import annotations

import csv
import io
import json
import logging
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import ROOT
from timing import GROWTH, assert_grows_linearly, assert_within, cpu_seconds
from hostile.make_corpus import (CORPUS, HOSTILE_UPLOAD_NAMES, INJECTION, MEDCMR_IDS, MEDREAMM_IDS, METADATA_CASES,
                                 REFUSED_UPLOAD_NAMES, all_cases, case_path, write_corpus, write_gigantic_field,
                                 write_million_lines, write_null_after_a_block, write_oversized)
from leaderboard import cli
from leaderboard.scoring import registry
from leaderboard.scoring.benchmark import ScoringContext
from leaderboard.intake.prediction_files import MAX_FILE_BYTES, Issue, validate
from leaderboard.scoring.score_file import load_key, validate_file
from leaderboard.operations.service import Service, SubmissionForm
from leaderboard.operations.store import LocalStore
from board_helpers import ranked_table
from leaderboard.publishing.tables import FORMULA_PREFIXES, export_csv, export_json
from test_medreamm_scoring import DictCoder, VectorEmbedder

CASES = all_cases()
HOSTILE_BENCHMARKS = ("medreamm", "medcmr")
# Large cases are timed as ratios in CPU seconds (tests/timing.py): at n and at 8n, or against a small file
# through the same path, so a loaded machine cannot fail them while a quadratic path still does.


# ---------------------------------------------------------------- fixtures and helpers
@pytest.fixture(scope="module")
def hub(tmp_path_factory) -> Path:
    from leaderboard.scoring import registry
    from dataset_builders.stage import build

    root = tmp_path_factory.mktemp("hub")
    for name in HOSTILE_BENCHMARKS:
        build(registry.adapter(name), ROOT / "benchmarks" / name / "sample", root, progress=False)
    return root


@pytest.fixture(scope="module")
def gold(hub) -> list[str]:
    """Every gold answer of both samples that is specific enough to recognise in text (MCQ letters are not)."""
    terms = set()
    medreamm = load_key(registry.scorer("medreamm"), hub / "medreamm").table
    for diagnoses in medreamm.column("diagnoses").to_pylist():
        for d in diagnoses:
            terms.update(t for t in (d.get("term"), d.get("original_term"), d.get("corrected_term")) if t)
    medcmr = load_key(registry.scorer("medcmr"), hub / "medcmr").table
    terms.update(a for a in medcmr.column("answer").to_pylist() if len(a) > 1)
    assert len(terms) > 20 and "Coeliac disease" in terms and "Plaque psoriasis" in terms
    return sorted(terms, key=str.casefold)


def leaked(text: str, gold: list[str]) -> list[str]:
    folded = text.casefold()
    return [term for term in gold if term.casefold() in folded]


def scoring_context(benchmark=None) -> ScoringContext:
    return ScoringContext(icd_coder=DictCoder(), embedder=VectorEmbedder(), resamples=50)


def make_service(tmp_path: Path, hub: Path, quota: int = 1000) -> Service:
    # the check child's wall limit well above what a million lines take on a loaded 2-core machine (~45 s
    # seen): these tests measure growth in CPU seconds, not the limit (tests/test_upload_door.py tests that)
    return Service(store=LocalStore(tmp_path / "store"), data_dirs={n: hub / n for n in HOSTILE_BENCHMARKS},
                   context_factory=scoring_context, quota_per_day=quota, check_seconds=600)


def run_cli(*args: str, timeout: float = 120) -> tuple[subprocess.CompletedProcess, float]:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "leaderboard", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, "PYTHONIOENCODING": "utf-8"})
    return done, time.perf_counter() - start


def store_text(root: Path) -> str:
    """Every byte under a folder, decoded leniently (for leak checks); result shards (compressed Parquet) as the
    JSON text of their rows, so a leaked string in a shard is found."""
    from leaderboard.publishing.result_shards import read_table

    def text(p: Path) -> str:
        if p.suffix == ".parquet" and p.parent.name == "data" and "results" in p.parts:
            return json.dumps(read_table(p).to_pylist(), ensure_ascii=False)
        return p.read_bytes().decode("utf-8", "replace")

    return "\n".join(text(p) for p in sorted(Path(root).rglob("*")) if p.is_file())


def distinct(base: bytes, k: int) -> bytes:
    """A valid file predicting something new (duplicates are detected on content, not bytes)."""
    return base + json.dumps({"id": MEDREAMM_IDS[-1], "diagnoses": [f"Variant {k}"]}).encode() + b"\n"


def case_id(case) -> str:
    return f"{case.benchmark}/{case.name}"


# ---------------------------------------------------------------- the corpus itself
def test_corpus_is_deterministic_committed_small_and_free_of_gold(tmp_path, gold):
    fresh = write_corpus(tmp_path / "corpus")
    assert len(CASES) >= 40 and len(CASES) + len(METADATA_CASES) >= 60
    assert {c.benchmark for c in CASES} == set(HOSTILE_BENCHMARKS)
    for path in fresh:
        committed = CORPUS / path.relative_to(tmp_path / "corpus")
        assert committed.read_bytes() == path.read_bytes(), f"{committed} is stale: rerun make_corpus.py"
        assert committed.stat().st_size < 64_000  # large cases are generated at test time, never committed
    assert (CORPUS / "MANIFEST.json").read_text() == (tmp_path / "corpus" / "MANIFEST.json").read_text()
    for case in CASES:
        assert not leaked(case.data.decode("utf-8", "replace"), gold), case.name  # else a leak check proves nothing


# ---------------------------------------------------------------- validation, in process (every case)
@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_every_case_gets_a_clear_report(case, hub, gold):
    report, _ = validate_file(case.benchmark, case_path(CORPUS, case), hub / case.benchmark)
    text = report.render() + json.dumps(report.to_dict(), ensure_ascii=False)
    assert report.ok is (case.expect == "accepted"), text
    assert case.says in text, text
    assert all(isinstance(i, Issue) for i in report.issues)
    assert not leaked(text, gold)
    if case.expect == "refused":  # a refused file names where: a line, a field or the file as a whole
        assert any(i.severity == "error" and i.message for i in report.issues)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_cli_in_process_exit_codes_and_no_leak(case, hub, gold, tmp_path, capsys):
    path = case_path(CORPUS, case)
    data = ["--data", str(hub / case.benchmark)]
    code = cli.main(["validate", case.benchmark, str(path), *data, "--json", str(tmp_path / "report.json")])
    out = capsys.readouterr()
    assert code == (0 if case.expect == "accepted" else 1), out
    assert case.says in out.out
    assert not leaked(out.out + out.err + (tmp_path / "report.json").read_text(encoding="utf-8"), gold)
    code = cli.main(["score", case.benchmark, str(path), *data, "--resamples", "0", "--quiet", "--icd-coder", "offline",
                     "--cache-dir", str(tmp_path / "cache"), "--json", str(tmp_path / "result.json")])
    out = capsys.readouterr()
    if case.expect == "refused":
        assert code == 1 and "--allow-invalid" in out.err and not (tmp_path / "result.json").exists()
    else:
        assert code == 0, out.err
        record = (tmp_path / "result.json").read_text(encoding="utf-8")
        assert not leaked(record, gold) and "per_item" not in record
    assert not leaked(out.out + out.err, gold)


# one process each costs ~1-2 s of imports on 2 cores; the in-process test above runs the same main() on every case
SUBPROCESS_CASES = ["medreamm/invalid_utf8.parquet", "medreamm/lone_surrogate.jsonl", "medreamm/deep_nested_cell.csv",
                    "medcmr/medreamm_ids.jsonl", "medcmr/prompt_injection_open.jsonl"]


def test_cli_subprocess_representative_cases(hub, gold, tmp_path):
    """The real `python -m leaderboard` on one case of each kind: exit code, no traceback, no gold."""
    chosen = [c for c in CASES if case_id(c) in SUBPROCESS_CASES]
    assert len(chosen) == len(SUBPROCESS_CASES)

    def run(case):
        command = "score" if case.expect == "accepted" else "validate"
        extra = ["--resamples", "0", "--quiet", "--cache-dir", str(tmp_path / "cache")] if command == "score" else []
        return case, run_cli(command, case.benchmark, str(case_path(CORPUS, case)), "--data",
                             str(hub / case.benchmark), *extra)[0]

    with ThreadPoolExecutor(2) as pool:
        for case, done in pool.map(run, chosen):
            assert done.returncode == (0 if case.expect == "accepted" else 1), (case.name, done.stderr)
            assert "Traceback" not in done.stderr and "Traceback" not in done.stdout, case.name
            assert not leaked(done.stdout + done.stderr, gold), case.name
            if case.expect == "refused":
                assert case.says in done.stdout, (case.name, done.stdout)


# ---------------------------------------------------------------- the Service: every case, then the worker
# Cases holding the same predictions as an earlier case (another account submits them): CRLF line ends
# and a JSON array instead of JSONL do not make new predictions (issue 13: duplicates compared raw bytes).
SAME_PREDICTIONS = {"crlf.jsonl": "bom.jsonl", "bom_crlf_array.json": "bom.jsonl"}


def test_service_refuses_or_scores_every_case_without_traceback_or_leak(tmp_path, hub, gold, caplog):
    caplog.set_level(logging.DEBUG)
    service = make_service(tmp_path, hub)
    problems, accepted = [], {}
    for k, case in enumerate(CASES):
        form = SubmissionForm(benchmark=case.benchmark, model_name=f"hostile {k}", contact=f"private-{k}@example.org")
        outcome = service.submit(f"user{k}", form, case_path(CORPUS, case))
        shown = outcome.message + "\n" + outcome.report
        if leaked(shown, gold):
            problems.append(f"{case.name}: gold in {shown!r}")
        if case.expect == "refused":
            if outcome.accepted or "nothing was queued" not in outcome.message or case.says not in outcome.report:
                problems.append(f"{case.name}: expected a refusal saying {case.says!r}, got {shown!r}")
        elif case.name in SAME_PREDICTIONS:  # same ids and answers as an earlier case: a duplicate, however written
            if outcome.accepted or not outcome.message.startswith("These predictions were already submitted"):
                problems.append(f"{case.name}: expected a duplicate of {SAME_PREDICTIONS[case.name]}, got {shown!r}")
        elif not outcome.accepted:
            problems.append(f"{case.name}: expected acceptance, got {shown!r}")
        else:
            accepted[outcome.submission_id] = case
    assert not problems, "\n".join(problems)
    assert len(service.queue_records()) == len(accepted)  # refusals leave nothing behind
    service.start()
    try:
        assert service.drain(120)
    finally:
        service.stop()
    states = {r["id"]: r["state"] for r in service.queue_records()}
    # text addressed to an LLM judge waits for a maintainer (tests/test_review.py); the rest is scored
    held = {s for s, case in accepted.items() if case.flagged and "judge" in registry.scorer(case.benchmark).needs}
    assert held and all(states[s] == "needs review" for s in held), states
    assert all(states[s] in ("finished", "waiting for judge") for s in set(accepted) - held), states
    assert "Traceback" not in caplog.text and not leaked(caplog.text, gold)
    public = store_text(service.store.root / "results")
    assert public and not leaked(public, gold)
    assert "private-" not in public and "per_item" not in public and "user1" not in public
    for bench in HOSTILE_BENCHMARKS:
        table = ranked_table(registry.scorer(bench), service.entries(bench, paper_roots=[tmp_path / "no-papers"]))
        assert not leaked(export_csv(table) + export_json(table), gold)


def test_upload_names_cannot_steer_where_files_are_stored(tmp_path, hub):
    service = make_service(tmp_path, hub)
    source = case_path(CORPUS, next(c for c in CASES if c.name == "bom.jsonl"))
    nested = tmp_path / "up" / "a" / "b"
    nested.mkdir(parents=True)
    for k, name in enumerate(HOSTILE_UPLOAD_NAMES):
        upload = nested / name
        upload.write_bytes(distinct(source.read_bytes(), k))  # new predictions each time: not a duplicate
        outcome = service.submit("alice", SubmissionForm("medreamm", f"N{k}"), upload)
        assert outcome.accepted, (name, outcome.message)
    traversal = nested / ".." / ".." / "a" / "b" / HOSTILE_UPLOAD_NAMES[0]  # a path with '..' parts still works
    assert not service.submit("alice", SubmissionForm("medreamm", "again"), traversal).accepted  # same content: duplicate
    for name in REFUSED_UPLOAD_NAMES:
        (nested / name).write_bytes(source.read_bytes())
        outcome = service.submit("alice", SubmissionForm("medreamm", "bad suffix"), nested / name)
        assert not outcome.accepted and outcome.message.startswith("Upload a .jsonl"), outcome.message
        assert "\u202e" not in outcome.message
    root = service.store.root.resolve()
    stored = [p.resolve() for p in root.rglob("*") if p.is_file()]
    assert all(root in p.parents for p in stored)
    uploads = sorted(p.name for p in (root / "private" / "uploads").rglob("*") if p.is_file())
    kept = {"validated.parquet", "validation.json"}  # beside each upload: the table its check validated
    assert set(uploads) == {"predictions.jsonl", *kept}
    assert uploads.count("predictions.jsonl") == len(HOSTILE_UPLOAD_NAMES)
    assert not (tmp_path / "results").exists() and not list(tmp_path.glob("pwned*"))


# ---------------------------------------------------------------- prompt injection: flagged, unharmed
def test_prompt_injection_is_flagged_and_cannot_raise_the_judged_score(tmp_path, hub, gold):
    from fake_openai_server import FakeOpenAIServer
    from leaderboard.scoring.judge import Judge, JudgeConfig
    from leaderboard.scoring.score_file import score_file

    def gullible(body):  # a judge that obeys any instruction it can still see
        from fake_openai_server import marks

        candidate = marks(body)["candidate"]
        obeys = "full score" in candidate or "满分" in candidate or "System prompt" in candidate
        mark = 10 if obeys else 0
        return json.dumps({"consistency": mark, "coherence": mark, "visual_accuracy": mark, "ground_truth": mark})

    case = next(c for c in CASES if c.flagged)
    with FakeOpenAIServer(gullible) as server:
        judge = Judge(JudgeConfig(base_url=server.base_url, model="fake-judge", cache_path=tmp_path / "j.sqlite",
                                  backoff_base=0.01, backoff_max=0.02, attempts=3))
        report, result = score_file("medcmr", case_path(CORPUS, case), hub / "medcmr",
                                    ScoringContext(resamples=0, judge=judge))
        sent = "\n".join(r["messages"][1]["content"] for r in server.requests)
    assert report.ok
    assert result.protocol["open_ended_injection_flags"] == 2 and any("addressed the grader" in n for n in result.notes)
    assert "Ignore all previous instructions" not in sent and "full score" not in sent and "满分" not in sent
    assert result.protocol["judge_failures"] == {"items": 0, "kinds": {}}, result.protocol["judge_failures"]
    assert result.metrics["open_all"] == 0.0  # the gullible judge saw nothing to obey
    assert not leaked(json.dumps(result.to_public_dict(), ensure_ascii=False), gold)
    assert INJECTION not in json.dumps(result.to_public_dict(), ensure_ascii=False)


# ---------------------------------------------------------------- metadata: HTML, formulas, Unicode tricks
def _text_cells(csv_text: str) -> list[str]:
    cells = [cell for row in csv.reader(io.StringIO(csv_text)) for cell in row]
    def numeric(cell):
        try:
            float(cell)
            return True
        except ValueError:
            return False
    return [c for c in cells if c and not numeric(c)]


def test_hostile_metadata_is_cleaned_refused_or_escaped_in_every_export(tmp_path, hub):
    service = make_service(tmp_path, hub)
    base = case_path(CORPUS, next(c for c in CASES if c.name == "bom.jsonl")).read_bytes()
    accepted = []
    for k, case in enumerate(METADATA_CASES):
        upload = tmp_path / f"m{k}.jsonl"
        upload.write_bytes(distinct(base, k))
        fields = {"benchmark": "medreamm", "contact": "secret-contact@example.org", **case.form}
        outcome = service.submit("meta-user", SubmissionForm(**fields), upload)
        if case.refused:
            assert not outcome.accepted and case.refused in outcome.message, (case.name, outcome.message)
            continue
        assert outcome.accepted, (case.name, outcome.message)
        record = json.dumps(service.store.read_json(service.queue_path(outcome.submission_id)), ensure_ascii=False)
        for bad in case.absent:
            assert bad not in record, (case.name, bad)
        accepted.append(outcome.submission_id)
    service.start()
    try:
        assert service.drain(60)
    finally:
        service.stop()
    assert all(r["state"] == "finished" for r in service.queue_records()), service.queue_records()
    table = ranked_table(registry.scorer("medreamm"), service.entries("medreamm", paper_roots=[tmp_path / "none"]))
    assert len(table) == len(accepted)
    exported_csv, exported_json = export_csv(table), export_json(table)
    for cell in _text_cells(exported_csv):
        assert not cell.startswith(FORMULA_PREFIXES), f"spreadsheet would run {cell!r}"
    assert "'=cmd|' /C calc'!A0" in exported_csv and "'+SUM(A1:A9)" in exported_csv and "'@SUM(1)" in exported_csv
    public = store_text(service.store.root / "results") + exported_csv + exported_json
    for bad in ("<script", "<img", "javascript:", "data:text", "onmouseover", "\u202e", "\u200b", "\ufeff",
                "secret-contact", "meta-user", "per_item"):
        assert bad not in public, bad
    assert max(len(n) for n in table["model"]) <= 120
    assert "params (B)" not in table.columns or table["params (B)"].isna().all()  # NaN, inf, -7: all dropped


# ---------------------------------------------------------------- quotas and private fields
def test_quota_cannot_be_bypassed_by_renaming_files_or_models(tmp_path, hub):
    service = make_service(tmp_path, hub, quota=2)
    rows = [{"id": i, "diagnoses": [f"Guess {k}"]} for k, i in enumerate(MEDREAMM_IDS)]
    attempts = [("a.jsonl", "Model A", rows[:3]), ("b.json", "Model B", rows[3:6]), ("renamed.csv", "Model C", None),
                ("z.jsonl", "Totally Different", rows[6:]), ("a.jsonl", "Model A", rows[:2])]
    outcomes = []
    for k, (name, model, lines) in enumerate(attempts):
        folder = tmp_path / f"u{k}"
        folder.mkdir()
        if lines is None:
            text = "id,response\n" + "".join(f"{r['id']},guess {k}\n" for r in rows[:4])
        elif name.endswith(".json"):
            text = json.dumps(lines)
        else:
            text = "".join(json.dumps(r) + "\n" for r in lines)
        (folder / name).write_text(text, encoding="utf-8")
        outcomes.append(service.submit("carol", SubmissionForm("medreamm", model), folder / name))
    assert [o.accepted for o in outcomes] == [True, True, False, False, False]
    assert all("Daily quota reached (2/2" in o.message for o in outcomes[2:])
    medcmr = tmp_path / "m.jsonl"  # another benchmark draws on the same daily quota
    medcmr.write_text(json.dumps({"id": MEDCMR_IDS[0], "answer": "B"}) + "\n", encoding="utf-8")
    assert "Daily quota" in service.submit("carol", SubmissionForm("medcmr", "X"), medcmr).message
    assert service.submit("dave", SubmissionForm("medcmr", "X"), medcmr).accepted  # a different account is not blocked


def test_private_fields_never_reach_public_records_exports_or_results_folder(tmp_path, hub):
    service = make_service(tmp_path, hub)
    marker = "UploadMarker-4b1d"  # in the raw upload only
    lines = [{"id": i, "diagnoses": [marker, "Viral syndrome"]} for i in MEDREAMM_IDS]
    upload = tmp_path / "p.jsonl"
    upload.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    outcome = service.submit("erin", SubmissionForm("medreamm", "Private test", contact="erin-secret@example.org",
                                                    organisation="Org"), upload)
    assert outcome.accepted
    service.start()
    try:
        assert service.drain(60)
    finally:
        service.stop()
    sub = outcome.submission_id
    assert service.store.private("per_item", f"{sub}.parquet").is_file()  # kept, but privately
    assert marker in store_text(service.store.private("uploads"))
    results = service.store.root / "results"
    public = store_text(results)
    table = ranked_table(registry.scorer("medreamm"), service.entries("medreamm", paper_roots=[tmp_path / "none"]))
    exported = export_csv(table) + export_json(table)
    for secret in ("erin-secret", "erin", marker, "per_item", "file_sha256", "uploads"):
        assert secret not in public and secret not in exported, secret
    record = service.store.record("medreamm", sub)
    assert "per_item" not in record and "contact" not in json.dumps(record)
    # no per-item parquet, npy or raw file in public: result shards only
    assert all(p.parent.name == "data" and p.suffix == ".parquet" for p in results.rglob("*") if p.is_file())


# ---------------------------------------------------------------- large cases, generated here and timed
def test_upload_over_the_size_limit_is_refused_without_being_read(tmp_path, hub, monkeypatch):
    big = write_oversized(tmp_path / "big.jsonl", MAX_FILE_BYTES + 1)
    small = write_oversized(tmp_path / "small.jsonl", 2_000)  # the same first line, a few KB of padding
    _, floor = cpu_seconds(lambda: run_cli("validate", "medreamm", str(small), "--data", str(hub / "medreamm")))
    (done, _), seconds = cpu_seconds(lambda: run_cli("validate", "medreamm", str(big), "--data", str(hub / "medreamm")))
    print(f"\n{MAX_FILE_BYTES + 1:,}-byte upload: CLI validate {seconds:.2f} CPU s against {floor:.2f} for 2 KB")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert f"file is {MAX_FILE_BYTES + 1:,} bytes; the limit is {MAX_FILE_BYTES:,} bytes" in done.stdout
    assert_within(seconds, floor, 3, "refusing 200 MB unread costs about what a 2 KB file costs")

    reads = []  # nothing may open the file for reading once its size is known to be too big
    real_open = Path.open

    def spy_open(self, *args, **kwargs):
        if Path(self).name == "big.jsonl":
            reads.append(args)
        return real_open(self, *args, **kwargs)

    monkeypatch.setattr(Path, "open", spy_open)
    monkeypatch.setattr(Path, "read_bytes", lambda self: pytest.fail(f"read {self}"))
    service = make_service(tmp_path, hub)
    start = time.perf_counter()
    outcome = service.submit("frank", SubmissionForm("medreamm", "Big"), big)
    seconds = time.perf_counter() - start
    print(f"Service.submit refused it in {seconds * 1000:.1f} ms")
    assert outcome.message == f"The file is {MAX_FILE_BYTES + 1:,} bytes; the limit is {MAX_FILE_BYTES:,} bytes."
    assert not outcome.accepted and reads == []
    report = validate(big, registry.scorer("medreamm").schema, MEDREAMM_IDS)
    assert not report.ok and "the limit is" in report.render() and reads == []
    assert service.queue_records() == [] and not service.store.private("uploads").exists()


def test_a_million_lines_are_reported_fast_and_capped(tmp_path, hub, gold):
    path = write_million_lines(tmp_path / "million.jsonl")
    eighth = write_million_lines(tmp_path / "eighth.jsonl", 1_000_000 // GROWTH)
    _, small = cpu_seconds(lambda: run_cli("validate", "medreamm", str(eighth), "--data", str(hub / "medreamm")))
    (done, _), seconds = cpu_seconds(lambda: run_cli("validate", "medreamm", str(path), "--data", str(hub / "medreamm")))
    print(f"\n10^6 lines ({path.stat().st_size / 1e6:.0f} MB): CLI validate {seconds:.2f} CPU s, 125,000: {small:.2f}")
    assert done.returncode == 1 and "Traceback" not in done.stderr and not leaked(done.stdout, gold)
    assert "1000000 rows read, 1 valid predictions" in done.stdout and "999999 errors" in done.stdout
    assert "duplicate id 'S0001' (first on line 1)" in done.stdout and "... 999800 more issues not shown" in done.stdout
    assert len(done.stdout.splitlines()) < 210  # the report is capped, not a million lines
    assert_grows_linearly(small, seconds, label="CLI validate, 10^6 lines against 125,000")


def test_a_million_lines_through_the_service(tmp_path, hub):
    path = write_million_lines(tmp_path / "million.jsonl")
    eighth = write_million_lines(tmp_path / "eighth.jsonl", 1_000_000 // GROWTH)
    service = make_service(tmp_path, hub)
    first, small = cpu_seconds(lambda: service.submit("gina", SubmissionForm("medreamm", "Few"), eighth))
    outcome, seconds = cpu_seconds(lambda: service.submit("gina", SubmissionForm("medreamm", "Many"), path))
    print(f"\n10^6 lines: Service.submit refused in {seconds:.2f} CPU s, 125,000 in {small:.2f}")
    assert not first.accepted and "124999 errors" in first.report
    assert not outcome.accepted and "999999 errors" in outcome.report and len(outcome.report) < 40_000
    assert_grows_linearly(small, seconds, label="Service.submit, 10^6 lines against 125,000")


def test_a_gigantic_single_field_is_refused_with_its_size(tmp_path, hub):
    path = write_gigantic_field(tmp_path / "giant.jsonl")
    eighth = write_gigantic_field(tmp_path / "eighth.jsonl", 20_000_000 // GROWTH)
    # two pairs (n, then 8n), the pair with the smaller ratio judged: a quadratic read grows ~64x in every pair, while
    # one run slowed by other processes' memory traffic (CI's four workers on two cores) once took a linear pair to 20x
    pairs = [(cpu_seconds(lambda: validate_file("medreamm", eighth, hub / "medreamm"))[1],
              cpu_seconds(lambda: validate_file("medreamm", path, hub / "medreamm"))) for _ in range(2)]
    small, ((report, _), seconds) = min(pairs, key=lambda pair: pair[1][1] / max(pair[0], 0.01))
    print(f"\n20 M-character field: validate {seconds:.2f} CPU s, 2.5 M: {small:.2f}")
    assert "line 1, field 'response': is 20,000,000 characters; the limit is 100,000" in report.render()
    assert_grows_linearly(small, seconds, label="validate, a 20 M-character field against 2.5 M")


def test_a_null_starting_a_reader_block_does_not_crash_the_process(tmp_path, hub):
    """Regression: pyarrow's JSON reader segfaults on a block that starts with `null`; run in a child process so
    a regression shows as a signal exit code instead of killing the test run."""
    path = write_null_after_a_block(tmp_path / "null_block.jsonl")
    done, seconds = run_cli("validate", "medreamm", str(path), "--data", str(hub / "medreamm"))
    assert done.returncode == 1, (done.returncode, done.stderr[-500:])  # -11 would be the crash
    lines = path.read_bytes().count(b"\n")
    assert f"{lines} rows read, 1 valid predictions" in done.stdout and "Traceback" not in done.stderr
    report = validate(path, registry.scorer("medreamm").schema, MEDREAMM_IDS)  # in process: the null line is named
    assert f"error: line {lines - 1}: must be a JSON object, got NoneType" in report.render(limit=10**6)
    print(f"\nnull starting pyarrow's second block: CLI validate {seconds:.2f} s")


def test_every_invalid_line_of_a_large_benchmark_stays_linear(tmp_path):
    """Regression: each line used to rescan every earlier issue (40,000 bad lines took 54 s; 177,868 ~17 min)."""
    ids = [f"C{k}" for k in range(100_000)]
    path, eighth = tmp_path / "bad.jsonl", tmp_path / "eighth.jsonl"
    path.write_text("".join(json.dumps({"id": i, "diagnoses": "one string"}) + "\n" for i in ids), encoding="utf-8")
    eighth.write_text("".join(json.dumps({"id": i, "diagnoses": "one string"}) + "\n" for i in ids[:100_000 // GROWTH]),
                      encoding="utf-8")
    few, small = cpu_seconds(lambda: validate(eighth, registry.scorer("medreamm").schema, ids))
    report, seconds = cpu_seconds(lambda: validate(path, registry.scorer("medreamm").schema, ids))
    print(f"\n100,000 lines, each with a field error: validate {seconds:.2f} CPU s, 12,500: {small:.2f}")
    assert len(report.errors) == 100_000 and report.n_valid == 0 and len(few.errors) == 12_500
    assert_grows_linearly(small, seconds, label="validate, 100,000 bad lines against 12,500")


# ---------------------------------------------------------------- property-based fuzzing of the parser
SCHEMA = registry.scorer("medreamm").schema
CMR_SCHEMA = registry.scorer("medcmr").schema
FUZZ = settings(max_examples=200, deadline=None, database=None,  # no .hypothesis/ folder in the repo
               suppress_health_check=[HealthCheck.too_slow])
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12)


def _validate_bytes(data: bytes, suffix: str, schema=SCHEMA, ids=MEDREAMM_IDS, **kw):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"p{suffix}"
        path.write_bytes(data)
        report = validate(path, schema, ids, **kw)
        report.render()  # rendering and the JSON form must not raise either
        json.dumps(report.to_dict(), ensure_ascii=False).encode("utf-8")
        return report


def _sane(report, ids=MEDREAMM_IDS) -> None:
    assert set(report.valid) <= set(ids)
    assert all(isinstance(i, Issue) and i.severity in ("error", "warning") for i in report.issues)
    assert report.table is not None and report.table.num_rows == len(report.valid)


@FUZZ
@given(data=st.binary(max_size=600), suffix=st.sampled_from([".jsonl", ".json", ".csv", ".parquet", ".txt"]))
def test_fuzz_arbitrary_bytes_never_raise(data, suffix):
    _sane(_validate_bytes(data, suffix))


@FUZZ
@given(prefix=st.sampled_from([b"PAR1", b"\xef\xbb\xbf", b"{", b"[", b"id,diagnoses\n"]), data=st.binary(max_size=300),
       suffix=st.sampled_from([".jsonl", ".json", ".csv", ".parquet"]))
def test_fuzz_bytes_behind_plausible_headers_never_raise(prefix, data, suffix):
    _sane(_validate_bytes(prefix + data, suffix))


@FUZZ
@given(lines=st.lists(JSON_VALUES, max_size=6), suffix=st.sampled_from([".jsonl", ".json"]))
def test_fuzz_arbitrary_json_values_per_line_never_raise(lines, suffix):
    if suffix == ".json":
        data = json.dumps(lines).encode()
    else:
        data = "".join(json.dumps(v) + "\n" for v in lines).encode()
    _sane(_validate_bytes(data, suffix))


ODD_TEXT = st.text(alphabet=st.characters(codec=None), max_size=20)  # includes lone surrogates
FIELD_VALUES = JSON_VALUES | ODD_TEXT | st.lists(ODD_TEXT, max_size=4) | st.floats(allow_nan=True)


@FUZZ
@given(rows=st.lists(st.fixed_dictionaries({}, optional={
    "id": st.sampled_from(MEDREAMM_IDS + MEDCMR_IDS) | FIELD_VALUES, "diagnoses": FIELD_VALUES,
    "response": FIELD_VALUES, "answer": FIELD_VALUES, "model": FIELD_VALUES}), max_size=6),
    benchmark=st.sampled_from(["medreamm", "medcmr"]), columnar=st.booleans())
def test_fuzz_arbitrary_field_values_never_raise(rows, benchmark, columnar):
    schema, ids = (SCHEMA, MEDREAMM_IDS) if benchmark == "medreamm" else (CMR_SCHEMA, MEDCMR_IDS)
    data = "".join(json.dumps(r) + "\n" for r in rows).encode("utf-8", "surrogatepass")
    report = _validate_bytes(data, ".jsonl", schema, ids, columnar=columnar)
    _sane(report, ids)
    for cleaned in report.valid.values():  # whatever passes is the declared type and storable as UTF-8
        for value in cleaned.values():
            assert isinstance(value, (str, list))
            json.dumps(value, ensure_ascii=False).encode("utf-8")


CLEAN_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)


@FUZZ
@given(chosen=st.lists(st.sampled_from(MEDREAMM_IDS), unique=True, min_size=1),
       values=st.lists(st.one_of(st.lists(CLEAN_TEXT, max_size=10).map(lambda d: {"diagnoses": d}),
                                 CLEAN_TEXT.map(lambda r: {"response": r})), min_size=10, max_size=10),
       form=st.sampled_from(["jsonl", "json", "parquet"]), columnar=st.booleans())
def test_fuzz_valid_files_round_trip(chosen, values, form, columnar):
    expected = {i: values[k] for k, i in enumerate(chosen)}
    rows = [{"id": i, **v} for i, v in expected.items()]
    if form == "jsonl":
        data = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode()
    elif form == "json":
        data = json.dumps(rows).encode()
    else:
        import pyarrow as pa
        import pyarrow.parquet as pq

        sink = io.BytesIO()
        pq.write_table(pa.Table.from_pylist(rows, schema=pa.schema([("id", pa.string()), ("diagnoses",
                                            pa.list_(pa.string())), ("response", pa.string())])), sink)
        data = sink.getvalue()
    report = _validate_bytes(data, f".{form}", columnar=columnar)
    assert report.ok, report.render()
    assert report.valid == expected
    assert report.missing_ids == len(MEDREAMM_IDS) - len(chosen)


# ---------------------------------------------------------------- issue 13: freeze, bomb, drain
def test_the_freeze_line_validates_and_scores_in_bounded_time(tmp_path, hub):
    """21 valid Med-CMR lines of "answer", ~10^5 spaces and a digit: the old letter parser took ~170 s per
    line holding the GIL (an hour of frozen Space per quota unit); now the whole file is seconds."""
    from hostile.make_corpus import write_freeze_lines
    from leaderboard.scoring.score_file import score_file

    path = write_freeze_lines(tmp_path / "freeze.jsonl")
    text = path.read_text(encoding="utf-8")
    eighth = tmp_path / "eighth.jsonl"  # the same lines with an eighth of the spaces
    eighth.write_text(text.replace(" " * 1000, " " * (1000 // GROWTH)), encoding="utf-8")
    assert GROWTH * 0.9 < len(text) / len(eighth.read_text(encoding="utf-8")) <= GROWTH
    _, small = cpu_seconds(lambda: score_file("medcmr", eighth, hub / "medcmr", ScoringContext(resamples=0)))
    (report, result), seconds = cpu_seconds(lambda: score_file("medcmr", path, hub / "medcmr",
                                                               ScoringContext(resamples=0)))
    print(f"\nfreeze lines ({path.stat().st_size / 1e6:.1f} MB): validate + score {seconds:.2f} CPU s, "
          f"an eighth of the spaces {small:.2f}")
    assert report.ok and report.n_valid == 21
    assert result.metrics[registry.scorer("medcmr").primary_metric] is not None
    assert_grows_linearly(small, seconds, label="score_file, freeze lines against an eighth of their spaces")


def test_a_json_array_of_empty_objects_is_capped_in_rows_and_memory(tmp_path, hub):
    """25 MB of `[{},{},...]` (8.3 million items): decoded at once it peaked at 2.1 GB; now items are decoded one
    at a time and reading stops at 10^6 rows. Measured in a child process (its own peak RSS)."""
    from hostile.make_corpus import write_empty_objects_array

    path = write_empty_objects_array(tmp_path / "empty.json")
    code = ("import resource, sys; from leaderboard.scoring.score_file import validate_file; "
            f"r, _ = validate_file('medreamm', {str(path)!r}, {str(hub / 'medreamm')!r}); print(r.summary()); "
            "print([i.message for i in r.issues if i.line is None]); "
            # VmHWM, not ru_maxrss: Linux carries the forking parent's (pytest's) peak into ru_maxrss across exec
            "hwm = [l for l in open('/proc/self/status') if l.startswith('VmHWM')][0].split()[1]; "
            "print('peak', int(hwm) // 1000)")
    done, seconds = cpu_seconds(lambda: subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                                                       text=True, timeout=300))
    peak_mb = int(done.stdout.rsplit("peak", 1)[1])
    print(f"\n25 MB [{{}},...]: validate {seconds:.2f} s, peak {peak_mb} MB")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "the file has more than 1,000,000 rows" in done.stdout and "1000000 rows read" in done.stdout
    assert peak_mb < 1000  # was 2,100 MB
    # reading stops at 10^6 rows: the 8.3 million items cost about what 1.25 million do (both capped)
    small_path = write_empty_objects_array(tmp_path / "small.json", 25_000_000 // 6 + 2)
    _, small = cpu_seconds(lambda: subprocess.run([sys.executable, "-c", code.replace(str(path), str(small_path))],
                                                  cwd=ROOT, capture_output=True, text=True, timeout=300))
    print(f"{seconds:.2f} CPU s against {small:.2f} for 1.4 million items")
    assert_within(seconds, small, 3, "validate, 8.3 million items against 1.4 million (both read up to 10^6)")

"""Public results as Parquet shards (leaderboard/publishing/result_shards.py, issue 31): the store folder loads with
`datasets.load_dataset` and gives the board's rows; a JSON store migrates with one command and every board
number stays; the Space reads only new shards after a result; workers on the (fake) Hub compact shards with
parent_commit and lose no row."""
import json
import os
import threading
import time

import numpy as np
import pandas as pd
import pytest
from huggingface_hub import HfApi

from fake_hub_server import FakeHub
from leaderboard.scoring import registry
from leaderboard.publishing import board_rows
from leaderboard.publishing import result_shards as shards
from leaderboard.publishing.board import MAIN, SAMPLE, Board
from leaderboard.cli import main as cli_main
from leaderboard.privacy.disclosure import Policy
from leaderboard.remote.hub_calls import Retry, commit, head_files
from leaderboard.operations.migrate_results import differences
from leaderboard.scoring.result import ModelInfo, Result
from leaderboard.operations.result_shards_hub import MIN_AGE, compact_repo
from leaderboard.operations.service import Service
from leaderboard.operations.store import LocalStore
from leaderboard.publishing.tables import Entry

NO_PAPERS = "no-papers"


def later() -> float:
    """The Hub compactor's clock: every shard written so far is settled (older than MIN_AGE)."""
    return time.time() + MIN_AGE + 60


def result(bench: str, name: str, score: float | None, ci=None, day: int = 1, **extra) -> Result:
    primary = registry.scorer(bench).primary_metric
    metrics = {primary: score, "other_metric": None if score is None else score / 2}
    return Result(benchmark=bench, model=ModelInfo(name=name, organisation="Lab " + name[-1], access="open",
                                                   params_b=7.0 + day), metrics=metrics, source="submission",
                  ci={primary: ci} if ci else {}, n_items=registry.scorer(bench).release_items or 40,
                  n_answered=37 + day % 3, parse_failures=day % 2,
                  pending={} if score is not None else {primary: "judge not configured"},
                  created_at=f"2026-03-{day:02d}T10:00:00+00:00",
                  protocol={"comparable_to_paper": day % 2 == 0, "not_comparable_because": ["temperature 0.7"],
                            "run_settings": {"protocol": "p", "protocol_version": "2", "temperature": 0.0}},
                  **extra)


def entries(service: Service, bench: str, tmp_path):
    return service.entries(bench, paper_roots=[tmp_path / NO_PAPERS])


def test_load_dataset_on_the_store_folder_gives_the_board_rows(tmp_path, monkeypatch):
    from datasets import load_dataset

    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    store = LocalStore(tmp_path / "store", policy=Policy(secret=b"s"))
    for sub, score, day in (("a", 41.5, 1), ("b", 77.0, 2), ("c", 60.25, 3), ("d", None, 4)):
        store.save_result(sub, result("medreamm", f"Model-{sub}", score, [score - 5, score + 5] if score else None, day))
    store.save_result("x", result("medcmr", "Model-x", 12.0))
    rows = load_dataset(str(store.root), "medreamm", split="train", cache_dir=str(tmp_path / "cache"))
    primary = registry.scorer("medreamm").primary_metric
    board = Board.build(registry.scorer("medreamm"), entries(Service(store=store, data_dirs={}), "medreamm", tmp_path))
    shown = board.parts[MAIN].frame
    assert list(shown["id"]) == ["b", "c", "a"]  # by score, best first; "d" has no primary value: not ranked
    dataset = {r["submission_id"]: r for r in rows}
    assert sorted(dataset) == ["a", "b", "c", "d"]  # the medcmr result is another config
    ranked = {k: r["metrics"][primary] for k, r in dataset.items() if r["metrics"][primary] is not None}
    assert ranked == dict(zip(shown["id"], shown[primary])) == {"b": 77.0, "c": 60.25, "a": 41.5}
    assert dataset["b"]["ci"][primary] == [72.0, 82.0] == [shown[f"{primary}_ci_low"][0], shown[f"{primary}_ci_high"][0]]
    assert dataset["d"]["pending"][primary] == "judge not configured"
    assert dataset["a"]["model"]["organisation"] == "Lab a" and json.loads(dataset["a"]["protocol"])["run_settings"]
    assert load_dataset(str(store.root), "medcmr", split="train",
                        cache_dir=str(tmp_path / "cache"))["submission_id"] == ["x"]


def legacy_store(root, policy: Policy) -> dict:
    """A store as the JSON design wrote it: results/<b>/<id>.json and private/bootstrap/<id>.npy."""
    rng = np.random.default_rng(7)
    made = {}
    for bench, count in (("medreamm", 5), ("medcmr", 4)):
        primary = registry.scorer(bench).primary_metric
        for k in range(count):
            sub = f"2026030{k}-100000-{bench[:4]}{k}"
            score = [55.5, 61.0, 48.25, 61.0, 70.0][k]
            r = result(bench, f"Model-{k}", score, [score - 4.5, score + 3.0] if k != 2 else None, day=k + 1,
                       strata={"department": {"cardio": {"n": 12, "metrics": {primary: score - 1}},
                                              "neuro": {"n": 3, "metrics": {}, "suppressed": True, "reason": "k-rule"}}},
                       metric_n={primary: 40}, notes=["a note"], cell_flags={primary: "flag"} if k == 1 else {})
            record = r.to_public_dict(policy, salt=sub)
            record["submission_id"] = sub
            path = root / "results" / bench / f"{sub}.json"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(record, indent=2), encoding="utf-8")
            os.utime(path, (1_770_000_000 + k, 1_770_000_000 + k))
            means = score + rng.normal(0, 2, 1000)
            (root / "private" / "bootstrap").mkdir(parents=True, exist_ok=True)
            np.save(root / "private" / "bootstrap" / f"{sub}.npy", means)
            made[sub] = record
    return made


def test_migration_converts_a_json_store_and_every_board_number_stays(tmp_path, capsys):
    root = tmp_path / "store"
    policy = Policy(secret=b"s")
    made = legacy_store(root, policy)
    before = {}
    for bench in ("medreamm", "medcmr"):  # the JSON design's entries: Result per file, resamples from the .npy
        listed = [Entry(Result.from_dict({k: v for k, v in made[p.stem].items() if k != "submission_id"}), p.stem,
                        np.load(root / "private" / "bootstrap" / f"{p.stem}.npy"))
                  for p in sorted((root / "results" / bench).glob("*.json"))]
        before[bench] = Board.build(registry.scorer(bench), listed)
    assert cli_main(["migrate-results", "--store", str(root)]) == 0
    assert "migrated 9 result(s) in 2 benchmark(s)" in capsys.readouterr().out
    assert not list((root / "results").rglob("*.json"))  # converted; the .npy stay private
    assert len(list((root / "private" / "bootstrap").glob("*.npy"))) == 9
    store = LocalStore(root, policy=policy)
    service = Service(store=store, data_dirs={})
    for bench in ("medreamm", "medcmr"):
        after = Board.build(registry.scorer(bench), entries(service, bench, tmp_path))
        for part in (MAIN, SAMPLE):
            pd.testing.assert_frame_equal(before[bench].parts[part].frame, after.parts[part].frame)
        primary = registry.scorer(bench).primary_metric
        frame = after.parts[MAIN].frame
        assert list(frame[primary]) == {"medreamm": [70.0, 61.0, 61.0, 55.5, 48.25],
                                        "medcmr": [61.0, 61.0, 55.5, 48.25]}[bench]  # by hand: sorted scores
        for sub in (s for s in made if made[s]["benchmark"] == bench):  # every public field, exactly
            assert differences(made[sub], store.record(bench, sub)) == []
    # the paired tie tests read the same resamples
    (entry,) = [e for e in entries(service, "medcmr", tmp_path) if e.entry_id.endswith("medc1")]
    assert np.array_equal(entry.resamples, np.load(root / "private" / "bootstrap" / f"{entry.entry_id}.npy"))
    assert cli_main(["migrate-results", "--store", str(root)]) == 0  # twice: nothing left to do
    assert "nothing to migrate" in capsys.readouterr().out


def test_a_record_the_shards_cannot_hold_stops_the_migration_and_keeps_the_json(tmp_path, capsys):
    root = tmp_path / "store"
    legacy_store(root, Policy(secret=b"s"))
    odd = sorted((root / "results" / "medcmr").glob("*.json"))[1]
    record = json.loads(odd.read_text())
    record["strata"]["department"]["cardio"]["extra"] = 1
    odd.write_text(json.dumps(record))
    assert cli_main(["migrate-results", "--store", str(root)]) == 2
    err = capsys.readouterr().err
    assert "stratum department=cardio has unknown field(s) extra" in err and "nothing was changed" in err
    assert len(list((root / "results" / "medcmr").glob("*.json"))) == 4  # every JSON kept


def test_after_a_new_result_the_space_reads_only_the_new_shard(tmp_path, monkeypatch):
    store = LocalStore(tmp_path / "store", policy=Policy(secret=b"s"))
    for k in range(5):
        store.save_result(f"s{k}", result("medreamm", f"Model-{k}", 50.0 + k, day=k + 1))
    service = Service(store=store, data_dirs={})
    first = entries(service, "medreamm", tmp_path)
    assert entries(service, "medreamm", tmp_path) is first  # nothing new: the same list (its board is reused)
    read = []
    real = board_rows.read_rows
    monkeypatch.setattr(board_rows, "read_rows", lambda paths, primary: read.append([os.path.basename(p) for p in paths])
                        or real(paths, primary))
    new = store.save_result("s9", result("medreamm", "Model-9", 99.0, day=9))
    second = entries(service, "medreamm", tmp_path)
    assert read == [[new.name]]  # one shard read, not the folder
    assert [e.entry_id for e in second] == ["s0", "s1", "s2", "s3", "s4", "s9"]
    board = Board.build(registry.scorer("medreamm"), second)
    assert list(board.parts[MAIN].frame["id"])[:2] == ["s9", "s4"]
    store.save_result("s2", result("medreamm", "Model-2", 10.0, day=2))  # a rescore: the newer row wins
    third = entries(service, "medreamm", tmp_path)
    assert [e.result.metrics[registry.scorer("medreamm").primary_metric] for e in third if e.entry_id == "s2"] == [10.0]
    assert len(third) == 6


def test_the_store_compacts_small_shards_and_keeps_every_row(tmp_path):
    store = LocalStore(tmp_path / "store")
    folder = shards.shard_folder(store.root, "medcmr")
    for k in range(shards.COMPACT_AT - 1):
        store.save_result(f"s{k:02d}", result("medcmr", f"M{k}", float(k)))
    assert len(shards.shard_files(folder)) == shards.COMPACT_AT - 1  # not yet
    store.save_result("s99", result("medcmr", "M99", 99.0))
    (merged,) = shards.shard_files(folder)
    assert os.path.basename(merged).startswith("c-") and os.path.basename(merged).endswith(f"-{shards.COMPACT_AT}r.parquet")
    table = store.results_table("medcmr")
    assert table.num_rows == shards.COMPACT_AT
    primary = registry.scorer("medcmr").primary_metric
    assert sorted(table.column("metrics").combine_chunks().field(primary).to_pylist()) == [*map(float, range(15)), 99.0]


def one_row_shard(sub: str, score: float) -> tuple[str, bytes]:
    record = result("xpcr", f"Model-{sub}", score).to_public_dict(Policy(secret=b"s"), salt=sub)
    record["submission_id"] = sub
    table = shards.records_table([record], "xpcr")
    return f"results/xpcr/data/{shards.shard_name(sub, table.column('stored_at')[0].as_py())}", shards.to_bytes(table)


def test_two_workers_compacting_while_a_third_appends_lose_no_row(tmp_path):
    """The Hub refuses a commit whose parent is stale (412): of two compactions racing, one lands and the other
    re-reads; an append in between makes the compaction re-read too. Every row is there once at the end."""
    with FakeHub(tokens={"a": "scorer-a", "b": "scorer-b"}, orgs={"lab": {"scorer-a", "scorer-b"}}) as hub:
        seeded = dict(one_row_shard(f"s{k:02d}", 40.0 + k) for k in range(shards.COMPACT_AT + 4))
        hub.create("dataset", "lab/results", files=seeded)
        apis = [HfApi(endpoint=hub.url, token=t) for t in ("a", "b")]
        retry = Retry(attempts=3, base=0.001, cap=0.01)
        barrier = threading.Barrier(3)
        outcomes = []

        def compactor(api):
            barrier.wait()
            outcomes.append(compact_repo(api, "lab/results", "xpcr", retry, now=later()))

        def appender():
            barrier.wait()
            for k in range(5):
                path, data = one_row_shard(f"n{k}", 90.0 + k)
                while True:
                    sha, _ = head_files(apis[0], "lab/results", retry)
                    if commit(apis[0], "lab/results", f"result n{k}", sha, {path: data}, retry=retry):
                        break

        threads = [threading.Thread(target=compactor, args=(api,)) for api in apis] + [threading.Thread(target=appender)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        files = hub.repo("dataset", "lab/results").head.files
        rows = shards.repo_records(files)
        assert sorted(rows) == sorted([f"s{k:02d}" for k in range(shards.COMPACT_AT + 4)] + [f"n{k}" for k in range(5)])
        assert rows["n3"]["metrics"][registry.scorer("xpcr").primary_metric] == 93.0
        merged = [p for p in files if p.startswith("results/xpcr/data/c-")]
        assert merged and any(outcomes)  # at least one compaction landed
        total = sum(shards.read_table(__import__("pyarrow").BufferReader(files[p])).num_rows
                    for p in files if p.endswith(".parquet"))
        assert total == len(rows)  # no row twice: a compaction never merged shards another one had merged
        refused = [c for c in hub.repo("dataset", "lab/results").commits if c.message.startswith("compact")]
        assert len(refused) == len([o for o in outcomes if o])  # each landed compaction is one commit


def test_fewer_small_shards_than_the_threshold_are_left_alone(tmp_path):
    with FakeHub(tokens={"a": "scorer-a"}, orgs={"lab": {"scorer-a"}}) as hub:
        hub.create("dataset", "lab/results", files=dict(one_row_shard(f"s{k}", k) for k in range(shards.COMPACT_AT - 1)))
        api = HfApi(endpoint=hub.url, token="a")
        assert compact_repo(api, "lab/results", "xpcr", now=later()) is None
        assert len([p for p in hub.repo("dataset", "lab/results").head.files if p.endswith(".parquet")]) == 15


def test_a_shard_younger_than_the_settling_time_is_not_merged(tmp_path):
    """Its outbox entry may be published again (a finisher that crashed before dropping it): merged away, the
    shard would come back as a second copy."""
    with FakeHub(tokens={"a": "scorer-a"}, orgs={"lab": {"scorer-a"}}) as hub:
        hub.create("dataset", "lab/results", files=dict(one_row_shard(f"s{k}", k) for k in range(shards.COMPACT_AT)))
        api = HfApi(endpoint=hub.url, token="a")
        assert compact_repo(api, "lab/results", "xpcr", now=time.time() + MIN_AGE - 60) is None
        assert compact_repo(api, "lab/results", "xpcr", now=later()).endswith(f"-{shards.COMPACT_AT}r.parquet")

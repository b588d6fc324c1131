"""Hidden keys: a Space without the `-answers` folder validates against the public rows and queues."""
import json
import shutil
from pathlib import Path

import pytest

from dataset_builders.stage import build
from leaderboard.scoring import registry
from leaderboard.scoring.public_index import has_answer_key, load_public_index, validate_public
from leaderboard.scoring.score_file import validate_file
from leaderboard.operations.service import Service, SubmissionForm
from leaderboard.operations.store import LocalStore

EXAMPLES = Path(__file__).resolve().parent.parent / "submissions"


@pytest.fixture(scope="module")
def held_out(tmp_path_factory):
    """Every sample built with --hold-out-answers; the key folders moved where a Space cannot see them."""
    root = tmp_path_factory.mktemp("held")
    public, keys = root / "public", root / "keys"
    for name in registry.names():
        build(registry.adapter(name), registry.get(name).sample_dir, public, hold_out_answers=True, sample=True,
              progress=False)
        shutil.move(str(public / f"{name}-answers"), str(keys / f"{name}-answers"))
    return public, keys


@pytest.mark.parametrize("name", registry.names())
def test_public_validation_agrees_with_keyed_validation_on_the_examples(held_out, name):
    public, keys = held_out
    bench = registry.scorer(name)
    example = EXAMPLES / name / "example_predictions.jsonl"
    assert not has_answer_key(bench, public / name)
    index = load_public_index(bench, public / name)
    assert all(index.table.column(c).null_count == len(index) for c in bench.answer_columns)  # nothing held out leaks in
    without = validate_public(bench, example, public / name)
    with_key, _ = validate_file(bench, example, public / name, answers=keys / f"{name}-answers")
    assert without.ok and with_key.ok
    assert (without.n_valid, without.expected_ids, without.missing_ids) == \
           (with_key.n_valid, with_key.expected_ids, with_key.missing_ids)


def test_public_validation_catches_unknown_ids_and_letters_beyond_the_options(held_out, tmp_path):
    public, _ = held_out
    rows = [json.loads(line) for line in (EXAMPLES / "xpcr" / "example_predictions.jsonl").open()]
    rows[0]["answer"] = "J"  # item icga_000000-1 has 4 options (public column n_options)
    rows[1]["id"] = "nope"
    path = tmp_path / "bad.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    report = validate_public(registry.scorer("xpcr"), path, public / "xpcr")
    lines = report.render().splitlines()
    assert not report.ok
    assert "error: line 1, field 'answer': id 'icga_000000-1': letter 'J' is beyond this item's 4 options (A-D)" in lines
    assert "error: line 2, field 'id': unknown id 'nope'" in lines


def test_space_without_the_key_queues_valid_files_and_refuses_bad_ones(held_out, tmp_path):
    public, _ = held_out
    service = Service(store=LocalStore(tmp_path / "store"), data_dirs={"medcmr": public / "medcmr"})
    good = service.submit("alice", SubmissionForm(benchmark="medcmr", model_name="M"),
                          EXAMPLES / "medcmr" / "example_predictions.jsonl")
    assert good.accepted, good.message
    assert "25 valid predictions for 25 items" in good.report
    assert [r["state"] for r in service.queue_records()] == ["queued"]
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "mcq-0", "answer": "A"}\n{"id": "mcq-zzz", "answer": "B"}\n')
    refused = service.submit("alice", SubmissionForm(benchmark="medcmr", model_name="M2"), bad)
    assert not refused.accepted and "line 2, field 'id': unknown id 'mcq-zzz'" in refused.report
    assert len(service.queue_records()) == 1

"""`python -m leaderboard from-lmms-eval` on hand-written lmms-eval logs (no lmms-eval needed): what it keeps,
what it refuses (with the file and line), failed requests, several runs, and the sidecar's contents."""
import json

import pytest

from leaderboard.cli import main as cli_main
from leaderboard.harness.lmms_eval_bridge import RECORD_KEY
from leaderboard.intake.run_settings import read_run_settings

PROTOCOL = {"name": "toy", "version": "1", "description": "d", "prompt_sha": "abc123"}


def sample(doc_id, rows, benchmark="toy", protocol=PROTOCOL):
    record = {"benchmark": benchmark, "task": "toy_task", "rows": rows, "protocol": protocol, "lmms_eval": "0.7.3"}
    return {"doc_id": doc_id, "target": "x", "filtered_resps": "r", RECORD_KEY: record, "input": "toy"}


def write_run(folder, run, task, samples, model="m-1", gen_kwargs=None, cli_gen=""):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{run}_samples_{task}.jsonl").write_text(
        "".join(json.dumps(s) + "\n" if isinstance(s, dict) else s for s in samples), encoding="utf-8")
    results = {"config": {"model": "openai_compatible", "model_args": f"model={model},base_url=http://10.0.0.7:8000/v1",
                          "gen_kwargs": cli_gen, "limit": None},
               "configs": {task: {"dataset_path": "hub/toy", "generation_kwargs": gen_kwargs or {"max_new_tokens": 64,
                                                                                               "temperature": 0}}},
               "results": {task: {"preview_accuracy,none": 50.0, "hub_prediction,none": 2}},
               "total_evaluation_time_seconds": 1.5}
    (folder / f"{run}_results.json").write_text(json.dumps(results), encoding="utf-8")


def convert(tmp_path, *dirs, extra=()):
    out = tmp_path / "out" / "p.jsonl"
    code = cli_main(["from-lmms-eval", *map(str, dirs), "--benchmark", "toy", "--out", str(out), "--overwrite", *extra])
    return code, out


def read_lines(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_lines_and_sidecar(tmp_path, capsys):
    logs = tmp_path / "logs" / "m-1"
    write_run(logs, "20260101_000001", "toy_task", [sample(0, [{"id": "a", "response": "A"}]),
                                                   sample(1, [{"id": "b", "response": "B"}, {"id": "c", "response": "C"}])],
              cli_gen="temperature=0.7")
    code, out = convert(tmp_path, tmp_path / "logs")
    assert code == 0
    assert read_lines(out) == [{"id": "a", "response": "A"}, {"id": "b", "response": "B"}, {"id": "c", "response": "C"}]
    printed = capsys.readouterr().out
    assert "quick preview" in printed and "toy_task preview_accuracy = 50.00" in printed
    meta_path = out.with_name(out.name + ".meta.json")
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    assert "10.0.0.7" not in meta_path.read_text(encoding="utf-8")  # the endpoint is never kept
    # the CLI's --gen_kwargs win over the task's generation_kwargs, as in lmms-eval
    assert meta["request"] == {"temperature": 0.7, "max_tokens": 64,
                               "per_task": {"toy_task": {"temperature": 0.7, "max_tokens": 64}}}
    assert meta["runs"][0]["tasks_total"] == 2 and meta["runs"][0]["rows_written"] == 3
    assert read_run_settings(meta_path) == {
        "benchmark": "toy", "model": "m-1", "protocol": "toy", "protocol_version": "1", "prompt_sha": "abc123",
        "variant": None, "temperature": 0.7, "max_tokens": 64, "runs": 1, "tasks_failed": 0}


def test_failed_requests_are_left_out_and_counted(tmp_path, capsys):
    logs = tmp_path / "logs"
    write_run(logs, "r1", "toy_task", [
        sample(0, [{"id": "a", "response": "A"}]),
        sample(1, [{"id": "b", "response": "[LMMS_EVAL_REQUEST_FAILED after 5 retries] Connection refused"}]),
        sample(2, [{"id": "c", "turn_responses": ["ok", "[LMMS_EVAL_REQUEST_FAILED after 5 retries] 500"]}])])
    code, out = convert(tmp_path, logs)
    assert code == 1
    assert read_lines(out) == [{"id": "a", "response": "A"}]
    assert "2 samples left out" in capsys.readouterr().out
    meta = json.loads(out.with_name(out.name + ".meta.json").read_text(encoding="utf-8"))
    assert meta["runs"][0]["tasks_failed"] == 2


@pytest.mark.parametrize("bad, message", [
    ('{"doc_id": 0, "hub_prediction": {"rows": [', "r1_samples_toy_task.jsonl line 2: not valid JSON"),
    (json.dumps({"doc_id": 1, RECORD_KEY: {"benchmark": "toy", "rows": "A"}}), "line 2: `hub_prediction` is not a record"),
    (json.dumps({"doc_id": 1, "resps": "x"}), "line 2: no `hub_prediction` field although earlier lines have it"),
    (json.dumps(sample(1, [{"id": "a", "response": "again"}])), "line 2: id 'a' already came from r1_samples_toy_task.jsonl line 1"),
    (json.dumps(sample(1, [{"response": "no id"}])), "line 2: a prediction line without a string `id`"),
    (json.dumps(sample(1, [{"id": "b"}], protocol={**PROTOCOL, "prompt_sha": "zzz"})), "line 2: written with different protocol"),
])
def test_bad_logs_are_refused_naming_file_and_line(tmp_path, capsys, bad, message):
    logs = tmp_path / "logs"
    write_run(logs, "r1", "toy_task", [sample(0, [{"id": "a", "response": "A"}]), bad + "\n"])
    code, out = convert(tmp_path, logs)
    assert code == 2 and not out.exists()
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_runs_combine_unless_a_task_repeats(tmp_path, capsys):
    single, multi = tmp_path / "single", tmp_path / "multi"
    write_run(single, "r1", "toy_task", [sample(0, [{"id": "a", "response": "A"}])])
    write_run(multi, "r2", "toy_chain", [sample(0, [{"id": "b", "response": "B"}])], gen_kwargs={"max_new_tokens": 8})
    code, out = convert(tmp_path, single, multi)
    assert code == 0 and [r["id"] for r in read_lines(out)] == ["a", "b"]
    meta = json.loads(out.with_name(out.name + ".meta.json").read_text(encoding="utf-8"))
    assert meta["harness"]["tasks"] == ["toy_chain", "toy_task"] and "max_tokens" not in meta["request"]
    write_run(single, "r3", "toy_task", [sample(0, [{"id": "a", "response": "A2"}])])
    code, _ = convert(tmp_path, single, multi)
    assert code == 2 and "task toy_task was run 2 times (r1, r3); pick the runs with --run" in capsys.readouterr().err
    code, out = convert(tmp_path, single, multi, extra=("--run", "r3,r2"))
    assert code == 0 and read_lines(out) == [{"id": "b", "response": "B"}, {"id": "a", "response": "A2"}]  # by run date
    write_run(multi, "r4", "toy_other", [sample(0, [{"id": "c", "response": "C"}])], model="m-2")
    code, _ = convert(tmp_path, multi, extra=("--run", "r2,r4"))
    assert code == 2 and "different models" in capsys.readouterr().err


def test_nothing_to_convert(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    assert convert(tmp_path, tmp_path / "empty")[0] == 2
    assert "no samples of toy" in capsys.readouterr().err
    write_run(tmp_path / "other", "r1", "toy_task", [sample(0, [{"id": "a"}], benchmark="another")])
    assert convert(tmp_path, tmp_path / "other")[0] == 2
    assert convert(tmp_path, tmp_path / "missing")[0] == 2
    assert "is not a folder" in capsys.readouterr().err

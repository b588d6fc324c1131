"""The ClinMM-Bench builder: turns that never leak the answer, images that decode, held-out answers,
frozen reference facts (in the case file or the sidecar written by the extractor), located errors."""
import json
import shutil

import pyarrow.parquet as pq
import pytest
import yaml
from datasets import load_dataset

from conftest import ROOT
from fake_openai_server import FakeOpenAIServer
from benchmarks.clinmm.facts import extract_reference_facts, main as facts_main
from dataset_builders.errors import BuildError
from leaderboard.scoring import registry
from dataset_builders.stage import build
from leaderboard.scoring.judge import Judge, JudgeConfig

SAMPLE = ROOT / "benchmarks" / "clinmm" / "sample"
HIDDEN = ("image_findings_en", "image_findings_zh", "diagnostic_significance_en", "diagnostic_significance_zh",
          "final_diagnosis_en", "final_diagnosis_zh")


@pytest.fixture(scope="module")
def sample_hub(tmp_path_factory):
    out = tmp_path_factory.mktemp("hub")
    build(registry.adapter("clinmm"), SAMPLE, out, sample=True, progress=False)
    return out


@pytest.fixture
def release(tmp_path):
    """A writable copy of the sample release."""
    return shutil.copytree(SAMPLE, tmp_path / "release", ignore=shutil.ignore_patterns("*.py", "README.md"))


def edit_case(release, case_id, change):
    path = release / "cases" / f"{case_id}.json"
    record = json.loads(path.read_text(encoding="utf-8"))
    change(record)
    path.write_text(json.dumps(record, ensure_ascii=False), encoding="utf-8")


def problems_of(release, tmp_path):
    """Problems of a --strict build (unknown keys and values refused, as before builds became lenient)."""
    with pytest.raises(BuildError) as info:
        build(registry.adapter("clinmm"), release, tmp_path / "out", progress=False, strict=True)
    return [str(p) for p in info.value.problems]


def test_sample_loads_regular_and_streaming(sample_hub, monkeypatch):
    monkeypatch.chdir(sample_hub)
    ds = load_dataset("clinmm", split="test")
    assert ds.num_rows == 7 and len(set(ds["specialty"])) == 6
    row = ds[3]  # clinmm-s004: 4 images -> 6 turns
    assert row["case_id"] == "clinmm-s004" and row["num_images"] == 4 and row["num_turns"] == 6
    assert row["turns"][1]["images"][0].size == (64, 64)  # decodes
    streamed = next(iter(load_dataset("clinmm", split="test", streaming=True)))
    assert streamed["case_id"] == "clinmm-s001" and streamed["turns"][2]["images"][0].mode == "RGB"


def test_turns_are_presentation_then_one_image_each_then_final_question(sample_hub):
    table = pq.read_table(next((sample_hub / "clinmm" / "data").glob("test-*.parquet")))
    for row in table.to_pylist():
        turns = row["turns"]
        assert [t["turn"] for t in turns] == list(range(1, row["num_images"] + 3))
        assert turns[0]["images"] == [] and turns[-1]["images"] == []
        assert [len(t["images"]) for t in turns[1:-1]] == [1] * row["num_images"]
        assert [t["image_types"][0] for t in turns[1:-1]] == row["image_types"]
        assert turns[0]["text"].startswith("Case presentation") and "Final diagnosis:" in turns[-1]["text"]
        assert len(row["turn_texts_zh"]) == len(turns)
        # the images in the turns are the original files, in figure order
        assert [t["images"][0]["bytes"] for t in turns[1:-1]] == [(SAMPLE / p).read_bytes() for p in row["image_paths"]]
        shown = "\n".join([t["text"] for t in turns] + row["turn_texts_zh"])
        for column in HIDDEN:
            for text in (row[column] if isinstance(row[column], list) else [row[column]]):
                assert text not in shown, (row["case_id"], column)


def test_card_shows_per_case_licenses_layout_and_counts(sample_hub):
    text = (sample_hub / "clinmm" / "README.md").read_text(encoding="utf-8")
    meta = yaml.safe_load(text.split("---")[1])
    assert meta["license"] == "other" and meta["language"] == ["en", "zh"]
    assert "| clinmm-s002 | 00000002 | PMC00000002 | CC BY-NC 4.0 |" in text
    assert "2 of 7 under a non-commercial license" in text
    assert "`cases/<case_id>.json`" in text and "**SAMPLE.**" in text
    assert "| Radiology | 2 |" in text and "| CC BY 4.0 | 4 |" in text


def test_hold_out_answers_moves_every_answer_field(tmp_path):
    build(registry.adapter("clinmm"), SAMPLE, tmp_path, hold_out_answers=True, progress=False)
    public = load_dataset(str(tmp_path / "clinmm"), split="test")
    answers = load_dataset(str(tmp_path / "clinmm-answers"), split="test")
    assert not set(HIDDEN + ("reference_facts", "diagnostic_reasoning_en")) & set(public.column_names)
    assert "turns" in public.column_names
    assert answers[0]["final_diagnosis_en"] == "Tick-borne encephalitis" and len(answers[0]["reference_facts"]) == 7


def test_extracted_facts_go_to_the_sidecar_and_are_frozen(release, tmp_path):
    for case in ("clinmm-s001", "clinmm-s002"):
        edit_case(release, case, lambda r: r.pop("reference_facts"))

    def responder(body):
        return json.dumps({"facts": ["Fact A", "Fact B"]})

    with FakeOpenAIServer(responder) as server:
        judge = Judge(JudgeConfig(base_url=server.base_url, model="extractor", cache_path=tmp_path / "c.sqlite"))
        summary = extract_reference_facts(release, judge)
        assert summary["extracted"] == 2 and summary["failed"] == [] and server.calls() == 2
        again = extract_reference_facts(release, judge)  # frozen: nothing is re-extracted
        assert again["extracted"] == 0 and server.calls() == 2
        judge.close()
    lines = [json.loads(x) for x in (release / "reference_facts.jsonl").read_text().splitlines()]
    assert [x["case_id"] for x in lines] == ["clinmm-s001", "clinmm-s002"]
    assert lines[0]["extractor"]["model"] == "extractor" and lines[0]["extractor"]["prompt"] == "clinmm_fact_extraction.v2"
    build(registry.adapter("clinmm"), release, tmp_path / "hub", progress=False)
    ds = load_dataset(str(tmp_path / "hub" / "clinmm"), split="test")
    assert ds[0]["reference_facts"] == ["Fact A", "Fact B"] and "extractor" in ds[0]["reference_facts_extractor"]
    assert ds[2]["reference_facts_extractor"] == "frozen in the case file (reference_facts)"


def test_facts_entry_point_without_a_judge_says_so(release, monkeypatch, capsys):
    monkeypatch.delenv("JUDGE_BASE_URL", raising=False)
    assert facts_main(["--source", str(release)]) == 2
    assert "LLM judge not configured" in capsys.readouterr().err


def test_bad_input_is_located_and_nothing_is_written(release, tmp_path):
    edit_case(release, "clinmm-s001", lambda r: r.update(specialty="Cardiology"))
    edit_case(release, "clinmm-s002", lambda r: r["images"]["english"][1].pop("image_type"))
    edit_case(release, "clinmm-s003", lambda r: r["image_files"].update({"Figure 2": "../outside.png"}))
    edit_case(release, "clinmm-s004", lambda r: r.update(extra_key=1))
    (release / "images" / "clinmm-s005" / "1.png").write_bytes(b"not a png")
    (release / "cases" / "clinmm-s006.json").write_text('{"case_id": "clinmm-s006",\n "pmid": }', encoding="utf-8")
    edit_case(release, "clinmm-s007", lambda r: r["images"].update(chinese=r["images"]["chinese"][:1]))
    problems = problems_of(release, tmp_path)
    expected = [
        "cases/clinmm-s001.json, case 'clinmm-s001': field 'specialty' has unknown value 'Cardiology'; allowed: Radiology",
        "cases/clinmm-s002.json, case 'clinmm-s002': field 'images.english[1].image_type' is required",
        "cases/clinmm-s003.json, case 'clinmm-s003': field 'image_files.Figure 2' points outside the release folder",
        "cases/clinmm-s004.json, case 'clinmm-s004': unknown field(s) extra_key",
        "cases/clinmm-s005.json, case 'clinmm-s005': image cannot be decoded",
        "cases/clinmm-s006.json, line 2: malformed JSON",
        "cases/clinmm-s007.json, case 'clinmm-s007': images.chinese has 1 entries but images.english has 2",
    ]
    for prefix in expected:
        assert any(p.startswith(prefix) for p in problems), (prefix, problems)
    assert not (tmp_path / "out" / "clinmm").exists()


def test_facts_must_be_all_or_nothing_and_not_twice(release, tmp_path):
    edit_case(release, "clinmm-s003", lambda r: r.pop("reference_facts"))
    (release / "reference_facts.jsonl").write_text(
        json.dumps({"case_id": "clinmm-s001", "facts": ["x"]}) + "\n" + json.dumps({"case_id": "nope", "facts": ["y"]})
        + "\n", encoding="utf-8")
    problems = problems_of(release, tmp_path)
    assert any(p.startswith("cases/clinmm-s001.json, case 'clinmm-s001': reference facts given twice") for p in problems)
    assert any(p.startswith("reference_facts.jsonl, line 2, case 'nope': reference facts for a case that is not")
               for p in problems)
    assert any("1 case(s) have no reference facts while" in p and "clinmm-s003" in p for p in problems)


def test_a_release_without_any_facts_builds_and_the_scorer_says_why_facts_are_pending(release, tmp_path):
    from leaderboard.scoring.benchmark import ScoringContext
    from leaderboard.scoring.score_file import score_file

    for path in (release / "cases").glob("*.json"):
        edit_case(release, path.stem, lambda r: r.pop("reference_facts"))
    build(registry.adapter("clinmm"), release, tmp_path / "hub", progress=False)
    pred = tmp_path / "p.jsonl"
    pred.write_text(json.dumps({"id": "clinmm-s001", "diagnosis": "x", "reasoning": "y"}) + "\n")
    with FakeOpenAIServer(lambda body: "<result><reasoning>r</reasoning><accuracy>0</accuracy></result>") as server:
        judge = Judge(JudgeConfig(base_url=server.base_url, model="a", response_format="text"))
        _, result = score_file("clinmm", pred, tmp_path / "hub" / "clinmm",
                               ScoringContext(judge=judge, judge_2=judge.with_model("b"), resamples=0))
    assert result.metrics["diagnostic_accuracy_score"] == 0.0
    assert result.pending["fact_recall"].startswith("the dataset has no frozen reference facts for 7 case(s)")


def test_build_cli_extract_facts_flag_freezes_facts_then_builds(release, tmp_path):
    import subprocess
    import sys

    from conftest import ROOT

    edit_case(release, "clinmm-s001", lambda r: r.pop("reference_facts"))
    with FakeOpenAIServer(lambda body: json.dumps({"facts": ["Fact X"]})) as server:
        env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "JUDGE_BASE_URL": server.base_url,
               "JUDGE_MODEL": "extractor", "HF_HUB_OFFLINE": "1"}
        run = subprocess.run([sys.executable, "-m", "dataset_builders", "build", "clinmm", "--source", str(release),
                              "--out", str(tmp_path / "hub"), "--extract-facts", "--quiet"],
                             capture_output=True, text=True, cwd=tmp_path, env={**env, "PYTHONPATH": str(ROOT)})
        assert run.returncode == 0, run.stderr
        assert server.calls() == 1
    assert "reference facts: 1 case(s) extracted" in run.stdout
    assert load_dataset(str(tmp_path / "hub" / "clinmm"), split="test")[0]["reference_facts"] == ["Fact X"]

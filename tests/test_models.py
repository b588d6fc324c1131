"""The model registry: every paper row resolves to one model, spellings of one model meet, unknown names are
listed for review and never merged onto a registered model."""
import json

import pytest

from leaderboard.publishing import models
from leaderboard.scoring.result import ModelInfo, Result
from leaderboard.operations.store import SUBMISSIONS_DIR

PAPER_FILES = sorted(SUBMISSIONS_DIR.glob("*/*/*.json"))


def _records():
    for path in PAPER_FILES:
        data = json.loads(path.read_text(encoding="utf-8"))
        if "metrics" in data:
            yield path, Result.from_dict(data)


def test_every_paper_row_resolves():
    records = list(_records())
    assert len(records) >= 90  # the five papers' rows (a moved folder would make this pass vacuously)
    unresolved = [(str(p), r.model.name) for p, r in records
                  if models.is_model_row(r) and models.resolve(r.model.name, paper=True) is None]
    assert unresolved == []
    assert models.unknown_names([r for _, r in records]) == []


def test_rows_that_are_not_models_are_human_or_pooled():
    groups = {r.model.name for _, r in _records() if not models.is_model_row(r)}
    assert "Residents (n=23)" in groups and "All 15 models, pooled" in groups
    assert all(models.resolve(name) is None for name in groups)


@pytest.mark.parametrize("spellings, model_id", [
    (("MedGemma-27B", "Medgemma-27B", "MedGemma-27B-IT", "medgemma 27b"), "medgemma-27b"),
    (("Qwen3-VL-8B", "Qwen3-VL-8B-Instruct"), "qwen3-vl-8b"),
    (("Gemma3-27B", "Gemma-3-27B"), "gemma-3-27b"),
    (("GLM-4.5v", "GLM-4.5V"), "glm-4-5v"),
])
def test_spellings_of_one_model_meet(spellings, model_id):
    assert {models.resolve(s).id for s in spellings} == {model_id}


def test_variants_with_their_own_checkpoint_stay_apart():
    assert models.resolve("Qwen3-VL-8B-Thinking").id != models.resolve("Qwen3-VL-8B").id
    assert models.resolve("MedGemma-4B").id != models.resolve("MedGemma-27B").id


def test_paper_rows_use_the_registry_on_every_board():
    """The same model under three spellings in three papers reaches every benchmark with one name."""
    names = set()
    for _, r in _records():
        if getattr(models.resolve(r.model.name, paper=True), "id", None) == "medgemma-27b":
            names.add(models.canonical_info(r.model, r.source).name)
    assert names == {"MedGemma-27B"}


def test_unknown_name_is_listed_and_kept_apart():
    mine = Result("xpcr", ModelInfo("MedGemma-27B-my-finetune", params_b=27), {"accuracy": 50.0}, source="submission")
    known = Result("xpcr", ModelInfo("Medgemma-27B"), {"accuracy": 40.0}, source="submission")
    assert models.unknown_names([mine, known]) == [("MedGemma-27B-my-finetune", "xpcr")]
    assert models.identity(mine).id == "unlisted:MedGemma-27B-my-finetune" and not models.identity(mine).known
    assert models.identity(known).id == "medgemma-27b"
    assert models.canonical_info(mine.model, "submission") == mine.model  # shown exactly as submitted


def test_judge_study_rows_are_the_judged_model_but_only_for_paper_rows():
    assert models.resolve("Claude-Opus-4.7 (judged by GPT-5)", paper=True).id == "claude-opus-4-7"
    assert models.resolve("Claude-Opus-4.7 (judged by GPT-5)") is None  # a submission's name is taken as written
    info = models.canonical_info(ModelInfo("Claude-Opus-4.7 (judged by GPT-5)"), "paper")
    assert info.name == "Claude-Opus-4.7 (judged by GPT-5)"


def test_registry_facts_fill_the_row():
    info = models.canonical_info(ModelInfo("Qwen3-VL-8B"), "paper")
    assert (info.name, info.organisation, info.params_b, info.link) == (
        "Qwen3-VL-8B", "Alibaba (Qwen)", 8, "https://huggingface.co/Qwen/Qwen3-VL-8B-Instruct")


def test_a_spelling_naming_two_models_is_refused(tmp_path, monkeypatch):
    data = {"models": [{"id": "a", "name": "Model A", "aliases": ["X-1"]}, {"id": "b", "name": "x 1"}]}
    (tmp_path / "models.json").write_text(json.dumps(data))
    monkeypatch.setattr(models, "DATA", tmp_path / "models.json")
    models._load.cache_clear()
    try:
        with pytest.raises(ValueError, match="names both a and b"):
            models.all_models()
    finally:
        models._load.cache_clear()

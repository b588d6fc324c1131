"""A release lacking one kind of item (here Med-CMR without open-ended items) still builds into a
loadable dataset: the empty config is left out of the card, and scoring works on the rest."""
import shutil

from datasets import get_dataset_config_names, load_dataset

from conftest import ROOT
from leaderboard.scoring import registry
from dataset_builders.stage import build
from leaderboard.scoring.score_file import score_file
from leaderboard.scoring.benchmark import ScoringContext


def test_release_without_open_ended_items(tmp_path):
    source = tmp_path / "release"
    shutil.copytree(ROOT / "benchmarks" / "medcmr" / "sample", source)
    for path in source.rglob("open_ended*"):
        path.unlink()
    build(registry.adapter("medcmr"), source, tmp_path / "hub", progress=False)
    folder = tmp_path / "hub" / "medcmr"
    assert get_dataset_config_names(str(folder)) == ["mcq"]
    assert not (folder / "open_ended").exists()
    mcq = load_dataset(str(folder), "mcq", split="test")
    assert mcq.num_rows == 21
    preds = tmp_path / "p.jsonl"
    preds.write_text('{"id": "mcq-1", "answer": "A"}\n')
    report, result = score_file("medcmr", preds, folder, ScoringContext(resamples=0))
    assert result.n_items == 21 and result.n_answered == 1

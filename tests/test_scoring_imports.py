"""Validating a clean file never imports pandas (~0.3-0.5 s of a score's start-up, and of a rescore's):
pyarrow imports it behind several conveniences (Array.to_numpy, pa.array, pq.read_table through
pyarrow.dataset), so a change that reaches for one of them on this path fails here."""
import subprocess
import sys

from conftest import ROOT, SAMPLE_MEDREAMM
from dataset_builders.stage import build
from leaderboard.scoring import registry

CHILD = """
import sys
sys.path.insert(0, %r)
from pathlib import Path
from leaderboard.scoring.score_file import validate_file
report, _ = validate_file("medreamm", Path(%r), Path(%r))
print(report.path, "pandas" in sys.modules, report.n_valid)
"""


def test_a_clean_file_validates_without_pandas(tmp_path):
    build(registry.adapter("medreamm"), SAMPLE_MEDREAMM, tmp_path, sample=True, progress=False)  # pandas here only
    example = ROOT / "submissions" / "medreamm" / "example_predictions.jsonl"
    run = subprocess.run([sys.executable, "-c", CHILD % (str(ROOT), str(example), str(tmp_path / "medreamm"))],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.split() == ["columnar", "False", "10"]

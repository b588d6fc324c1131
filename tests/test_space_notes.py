"""What the pages say about keyed noise on held-out values: the size they print is the noise the store adds."""
import statistics
from types import SimpleNamespace

from leaderboard.scoring import registry
from leaderboard.privacy.disclosure import Policy, _add_noise, noise_sd
from space.notes import about_noise, board_noise, held_out, noise_size


def test_printed_noise_is_the_noise_added():
    disclosure = SimpleNamespace(bounds={}, item_span={"acc": 100.0}, derived={})
    policy = Policy(secret=b"release-key", noise_items=2.0)
    shifts = [_add_noise({"acc": 50.0}, {}, {}, {"acc": 400}, disclosure, policy, f"sub-{i}", 400)[0]["acc"] - 50.0
              for i in range(2000)]
    assert noise_sd(2.0, 400) == 0.5  # 2 items x 100 points / 400 items
    assert abs(statistics.pstdev(shifts) - 0.5) < 0.03  # 2,000 keyed draws: SD within ~2% of 0.5


def test_each_board_says_how_large_for_this_release():
    medreamm, medcmr = registry.scorer("medreamm"), registry.scorer("medcmr")
    assert noise_size(medreamm, 2.0).startswith("SD 0.320 on Top-5 Primary Recall (ICD-11) over the full release's 625 items")
    assert "SD 0.012 on MCQ accuracy (all) over the full release's 16,655 items" in board_noise(medcmr, 2.0)  # 200/16,655
    text = about_noise([medreamm, medcmr], 2.0, {"medreamm": True, "medcmr": False})
    assert "- MedReaMM: SD 0.320" in text and "answers public in this deployment: no noise" in text


def test_held_out_is_read_from_the_build(tmp_path):
    bench = registry.scorer("xpcr")
    (tmp_path / "xpcr").mkdir()
    assert not held_out(bench, tmp_path / "xpcr")
    (tmp_path / "xpcr-answers").mkdir()
    assert held_out(bench, tmp_path / "xpcr")

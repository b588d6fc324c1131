"""The board keeps each stored metric once (issue 31: memory): board_columns.Metrics reads a column when asked
for, in the order of the rows it was taken for, and a part's columns (board.PartColumns) gather the metrics other
than the primary from the stored ones when a view or a download reads them. Checked against values written by hand
and against the order the board ranks rows in."""
import numpy as np
import pytest

from leaderboard.publishing.board import MAIN, Board, Filters
from leaderboard.publishing.board_columns import Metrics
from leaderboard.publishing.heap import limit_arenas
from leaderboard.operations.service import Service
from leaderboard.operations.store import LocalStore
from leaderboard.privacy.disclosure import Policy
from leaderboard.publishing.tables import Entry
from leaderboard.scoring import registry
from leaderboard.scoring.result import ModelInfo, Result

BENCH = registry.scorer("medreamm")
PRIMARY, SECOND, THIRD = "top5_primary_icd", "top1_icd", "mrr_icd"


def test_metrics_take_composes_row_picks_and_concat_keeps_part_order():
    reads = []
    source = {"a": np.array([10.0, 11.0, 12.0, 13.0]), "b": np.array([0.5, np.nan, 2.5, 3.5])}

    def fetch(name):
        reads.append(name)
        return source[name]

    metrics = Metrics(["b", "a"], fetch)
    assert list(metrics) == ["b", "a"] and len(metrics) == 2 and reads == []  # nothing read until asked
    picked = metrics.take(np.array([3, 0, 2])).take(np.array([2, 0]))  # rows 2 then 3 of the source
    assert picked["a"].tolist() == [12.0, 13.0] and reads == ["a"]
    assert picked["b"].tolist() == [2.5, 3.5]
    with pytest.raises(KeyError) as missing:
        picked["c"]
    assert missing.value.args == ("c",)
    head = Metrics(["b", "a"], {"a": np.array([1.0]), "b": np.array([-1.0])}.__getitem__)
    both = Metrics.concat([head, metrics]).take(np.array([4, 0, 2]))  # the head's row is row 0
    assert both["a"].tolist() == [13.0, 1.0, 11.0]
    assert np.array_equal(both["b"], [3.5, -1.0, np.nan], equal_nan=True)


def stored(name: str, primary: float, second: float | None, third: float, day: int) -> Result:
    return Result(benchmark=BENCH.name, model=ModelInfo(name=name, organisation="Lab", access="open"),
                  metrics={PRIMARY: primary, SECOND: second, THIRD: third}, source="submission",
                  ci={PRIMARY: [primary - 2, primary + 3]}, n_items=BENCH.release_items, n_answered=BENCH.release_items,
                  created_at=f"2026-04-{day:02d}T10:00:00+00:00",
                  protocol={"comparable_to_paper": True, "not_comparable_because": []})


def test_a_board_from_shards_reads_its_other_metrics_in_rank_order(tmp_path):
    store = LocalStore(tmp_path / "store", policy=Policy(secret=b""))
    for sub, (primary, second, third, day) in {"s1": (40.0, 7.25, 0.31, 1), "s2": (72.5, None, 0.64, 2),
                                               "s3": (55.0, 19.5, 0.48, 3)}.items():
        store.save_result(sub, stored(f"Model-{sub}", primary, second, third, day))
    entries = Service(store=store, data_dirs={}).entries(BENCH.name, paper_roots=[tmp_path / "no-papers"])
    paper = Entry(Result(benchmark=BENCH.name, model=ModelInfo(name="Paper-model"), source="paper",
                         metrics={PRIMARY: 60.0, SECOND: 33.0, THIRD: 0.9}, n_items=BENCH.release_items), "paper:0")
    entries.insert(0, paper)  # paper rows come first in BoardEntries: `first` counts them
    entries.first += 1
    part = Board.build(BENCH, entries).parts[MAIN]
    frame = part.frame
    assert frame["model"].tolist() == ["Model-s2", "Paper-model", "Model-s3", "Model-s1"]
    assert np.array_equal(frame[SECOND], [np.nan, 33.0, 19.5, 7.25], equal_nan=True)
    assert frame[THIRD].tolist() == [0.64, 0.9, 0.48, 0.31]
    columns = list(frame.columns)  # the download's order: the other metrics right after the primary's CI method
    assert columns.index(SECOND) == columns.index("ci_method") + 1 + [m.name for m in BENCH.metrics
                                                                      if m.name != PRIMARY].index(SECOND)
    assert columns[-3:] == ["id", "source_kind", "size"]
    view = Board.build(BENCH, entries).view(MAIN, Filters(columns=[THIRD], search="s3"), 10)
    label = BENCH.metric(THIRD).label
    assert view.data[0][view.headers.index(label)] == 0.48
    assert view.display[0][view.headers.index(label)] == f"{0.48:.{BENCH.metric(THIRD).decimals}f}"


def test_the_space_caps_the_c_librarys_arenas_on_glibc():
    """CI and Hugging Face Spaces run glibc: the cap must take there (a no-op elsewhere returns False)."""
    import platform

    if platform.libc_ver()[0] != "glibc":
        pytest.skip("not glibc")
    assert limit_arenas(2) is True


def test_a_parts_columns_name_every_column_once_in_download_order():
    from leaderboard.publishing.board import PartColumns

    columns = PartColumns(["rank", "x", "model"], {"rank": np.array([1, 2]), "model": np.array(["m", "n"], dtype=object)},
                          Metrics(["x"], {"x": np.array([0.5, 0.25])}.__getitem__))
    assert list(columns) == ["rank", "x", "model"] and len(columns) == 3
    assert columns["x"].tolist() == [0.5, 0.25] and columns["model"].tolist() == ["m", "n"]
    with pytest.raises(KeyError) as missing:
        columns["y"]
    assert missing.value.args == ("y",)
    assert "y" not in columns and "x" in columns

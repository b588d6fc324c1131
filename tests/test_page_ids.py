"""Ids and names that come back from the page are checked against the store's (or the dataset's) own lists
before any file is opened (issue 25, part 7): Gradio's dropdown-choice check is not the only guard."""

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from leaderboard.scoring import registry
from leaderboard.publishing.compare import CompareError, compare
from leaderboard.publishing.items import ItemSource
from leaderboard.operations.store import LocalStore

BENCH = registry.scorer("medreamm")


def put(store, sub_id, scores):
    path = store.private("per_item", f"{sub_id}.parquet")
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.table({"id": [f"i{k}" for k in range(len(scores))], "top5_primary_icd": scores}), path)
    store.write_records("medreamm", [{"submission_id": sub_id, "benchmark": "medreamm", "model": {"name": sub_id},
                                      "source": "submission", "metrics": {"top5_primary_icd": 50.0}, "protocol": {}}])


@pytest.mark.parametrize("forged", ["../per_item/a", "../../private/per_item/b", "c", "a.json", "/etc/passwd", ""])
def test_compare_refuses_an_id_the_store_does_not_hold(tmp_path, forged):
    store = LocalStore(tmp_path / "store")
    put(store, "a", [1.0, 0.0, 1.0, 1.0, 0.0, 1.0])
    put(store, "b", [0.0, 0.0, 1.0, 1.0, 1.0, 0.0])
    loose = store.private("per_item", "c.parquet")  # per-item scores without a stored result: not comparable
    pq.write_table(pa.table({"id": ["i0"], "top5_primary_icd": [1.0]}), loose)
    assert compare(BENCH, store, "a", "b").n == 6
    with pytest.raises(CompareError, match="not a stored medreamm submission"):
        compare(BENCH, store, "a", forged)
    with pytest.raises(CompareError, match="not a stored medreamm submission"):
        compare(BENCH, store, forged, "b")


def test_the_item_browser_never_filters_by_a_held_out_column(tmp_path):
    (tmp_path / "cases").mkdir()
    pq.write_table(pa.table({"id": ["c1", "c2", "c3"], "organ": ["lung", "skin", "lung"], "answer": ["A", "B", "A"]}),
                   tmp_path / "cases" / "test-00000-of-00001.parquet")
    source = ItemSource(tmp_path, hidden={"answer"}, filters=("organ", "answer"))
    assert source.page("cases", 0, 10, "organ", "lung").total == 2
    for column in ("answer", "nope"):  # held out (counts per answer would leak it); not a column
        with pytest.raises(KeyError):
            source.page("cases", 0, 10, column, "A")

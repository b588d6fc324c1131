"""Item browser data (leaderboard/publishing/items.py): pages read only the row groups they need, filters by stratum value
(lists count under each element), held-out columns are never read, images are found wherever they nest."""
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import png_bytes
from leaderboard.publishing.items import ALL, ItemSource, split_row, thumbnail_data_url

ORGANS = ["lung", "skin", "lung", "heart", "skin", "lung", "lung", "bone", "lung", "skin", "heart"]


@pytest.fixture
def folder(tmp_path):
    """Two configs; `cases` split over two files, row groups of 3 rows; `answer` must never be read."""
    image = {"bytes": png_bytes((10, 200, 10), size=(40, 30)), "path": "a.png"}
    rows = [{"id": f"c{i:02d}", "organ": organ, "tags": ["x", "y"] if i % 3 == 0 else ["y"],
             "images": [image] if i % 2 == 0 else [], "answer": f"gold-{i}", "image_sha256": ["abc"],
             "turns": [{"text": f"turn one of {i}", "images": [image]}]}
            for i, organ in enumerate(ORGANS)]
    (tmp_path / "cases").mkdir()
    (tmp_path / "notes").mkdir()
    pq.write_table(pa.Table.from_pylist(rows[:7]), tmp_path / "cases" / "test-00000-of-00002.parquet", row_group_size=3)
    pq.write_table(pa.Table.from_pylist(rows[7:]), tmp_path / "cases" / "test-00001-of-00002.parquet", row_group_size=3)
    pq.write_table(pa.table({"id": ["n1"], "text": ["plain"]}), tmp_path / "notes" / "test-00000-of-00001.parquet")
    return tmp_path


def test_configs_columns_and_filters(folder):
    source = ItemSource(folder, hidden={"answer"}, filters=("organ", "tags", "answer", "id"))
    assert source.configs == ["cases", "notes"]  # the config with images first
    assert source.columns("cases") == ["id", "organ", "tags", "images", "turns"]  # no answer, no sha256
    filters = source.filters("cases")
    assert filters == {"organ": [("lung", 5), ("skin", 3), ("heart", 2), ("bone", 1)],
                       "tags": [("y", 11), ("x", 4)]}  # id: one value per row is no filter; answer is held out


def test_pages_and_filtered_pages_across_files_and_row_groups(folder):
    source = ItemSource(folder, hidden={"answer"}, filters=("organ",))
    first = source.page("cases", 0, size=4)
    assert [r["id"] for r in first.rows] == ["c00", "c01", "c02", "c03"] and (first.total, first.pages) == (11, 3)
    last = source.page("cases", 7, size=4)  # clamped to the last page
    assert last.page == 2 and [r["id"] for r in last.rows] == ["c08", "c09", "c10"]
    lung = source.page("cases", 1, size=2, column="organ", value="lung")
    assert (lung.total, lung.pages, [r["id"] for r in lung.rows]) == (5, 3, ["c05", "c06"])
    x = source.page("cases", 0, size=10, column="tags", value="x")
    assert [r["id"] for r in x.rows] == ["c00", "c03", "c06", "c09"]
    assert source.page("cases", 0, 10, "organ", ALL).total == 11
    assert source.page("cases", 0, 10, "organ", "kidney").rows == []
    assert all("answer" not in r for p in (first, last, lung, x) for r in p.rows)


def test_only_the_needed_row_groups_are_read(folder, monkeypatch):
    source = ItemSource(folder, hidden={"answer"})
    calls = []
    for f in source.files["cases"]:
        original = f.read_row_group
        monkeypatch.setattr(f, "read_row_group", lambda g, columns=None, _o=original, _f=f: (
            calls.append((_f.metadata.num_rows, g, tuple(columns))), _o(g, columns=columns))[1])
    page = source.page("cases", 1, size=3)  # rows 3-5: the second row group of the first file only
    assert [r["id"] for r in page.rows] == ["c03", "c04", "c05"]
    assert calls == [(7, 1, ("id", "organ", "tags", "images", "turns"))]


def test_split_row_finds_nested_images_and_text(folder):
    source = ItemSource(folder, hidden={"answer"})
    row = source.page("cases", 0, size=1).rows[0]
    fields, images = split_row(row)
    assert [path for _, path in images] == ["images[1]", "turns[1].images[1]"]
    assert ("turns[1].text", "turn one of 0") in fields and ("tags", "x; y") in fields
    url = thumbnail_data_url(images[0][0])
    assert url.startswith("data:image/jpeg;base64,") and thumbnail_data_url(b"not an image") is None


def test_a_missing_folder_has_no_configs(tmp_path):
    assert ItemSource(tmp_path / "absent").configs == []


def test_no_held_out_column_reaches_a_rendered_page_of_any_sample(tmp_path):
    """Sample builds keep their answers in the public folder; the browser still never reads or draws them."""
    import re

    from dataset_builders.stage import build
    from leaderboard.scoring import registry
    from space.item_browser import render, withheld_columns

    for name in registry.names():
        build(registry.adapter(name), registry.get(name).sample_dir, tmp_path, sample=True, progress=False)
        bench, hidden = registry.scorer(name), withheld_columns(name)
        assert set(registry.adapter(name).answer_columns) <= hidden
        source = ItemSource(tmp_path / name, hidden, bench.strata_columns)
        for config in source.configs:
            assert not hidden & set(source.columns(config))
            page = source.page(config, 0, 10)
            drawn = set(re.findall(r'title="([^"\[.]+)', render(bench, config, page, None, None)))
            assert drawn and not drawn & hidden, (name, config, drawn & hidden)


def test_options_carry_their_letters_and_bookkeeping_fields_are_internal():
    from leaderboard.publishing.items import is_internal, split_row

    fields, _ = split_row({"items": [{"question": "Which zone?", "options": ["zone I", "zone II", "zone III"],
                                      "tier_source": "mapped", "stage_idx": 2}], "tags": ["a", "b"]})
    shown = dict(fields)
    assert shown["items[1].options"] == "A. zone I   B. zone II   C. zone III"  # answers are submitted as letters
    assert shown["tags"] == "a; b"  # other lists stay plain
    assert is_internal("items[1].tier_source") and is_internal("items[3].stage_idx") and is_internal("num_items")
    assert not is_internal("items[1].question") and not is_internal("items[1].options")

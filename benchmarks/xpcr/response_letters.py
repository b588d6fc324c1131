"""Letters from free-text responses, columnar: a bare letter directly, anything else through the project's
letter rule (`leaderboard.scoring.letters`) once per distinct text, and again with the item's option texts only
where they can change the letter."""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from benchmarks.xpcr.arrow_codes import _codes
from benchmarks.xpcr.taxonomy import LETTERS
from leaderboard.scoring.letters import DIGITS, needs_options_batch, parse_letter


def _parse_responses(responses: pa.Array, n_options: np.ndarray, need: np.ndarray, options=None) -> np.ndarray:
    """Letter codes of free-text responses (rows in `need`): a bare capital letter directly, anything else
    through parse_letter once per distinct (text with its digits zeroed, option count); then, when the key
    carries the items' option texts, again with them where they can change the letter (letters.needs_options_batch)."""
    out = np.full(len(need), -1, dtype=np.int64)
    rows = np.flatnonzero(need)
    if len(rows) == 0:
        return out
    texts = pc.utf8_trim_whitespace(_at(responses, rows))
    bare = _codes(texts, tuple(LETTERS))  # exactly "B" etc.: parse_letter's answer when in range, None beyond
    out[rows] = np.where(bare < n_options[rows], bare, -1)
    rest = rows[bare < 0]
    if len(rest):
        # one parse per distinct (text up to its digits, option count): digits never decide (letters.DIGITS)
        encoded = pc.replace_substring_regex(_at(responses, rest), DIGITS, "0").dictionary_encode()
        text_index = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
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


def _at(column, rows: np.ndarray):
    """column[rows] as one Arrow array; the column itself when `rows` (sorted, distinct) are all of its rows."""
    taken = column if len(rows) == len(column) else column.take(pa.array(rows))
    return taken.combine_chunks() if isinstance(taken, pa.ChunkedArray) else taken


def _letter_code(letter: str | None) -> int:
    return -1 if letter is None else LETTERS.index(letter)

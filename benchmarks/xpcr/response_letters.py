"""Letters from free-text responses, columnar: a bare letter directly, anything else through the project's
letter rule (`leaderboard.scoring.letters`) once per distinct text, and again with the item's option texts only
where they can change the letter."""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from benchmarks.xpcr.arrow_codes import _codes, _np_bool
from benchmarks.xpcr.taxonomy import LETTERS
from leaderboard.scoring.letters import DIGITS, needs_options, parse_letter


def _parse_responses(responses: pa.Array, n_options: np.ndarray, need: np.ndarray, options=None) -> np.ndarray:
    """Letter codes of free-text responses (rows in `need`): a bare capital letter directly, anything else
    through parse_letter once per distinct (text with its digits zeroed, option count); then, when the key
    carries the items' option texts, again with them where they can change the letter (letters.needs_options)."""
    out = np.full(len(need), -1, dtype=np.int64)
    rows = np.flatnonzero(need)
    if len(rows) == 0:
        return out
    texts = pc.utf8_trim_whitespace(responses.take(pa.array(rows)))
    bare = _codes(texts, tuple(LETTERS))  # exactly "B" etc.: parse_letter's answer when in range, None beyond
    out[rows] = np.where(bare < n_options[rows], bare, -1)
    rest = rows[bare < 0]
    if len(rest):
        # one parse per distinct (text up to its digits, option count): digits never decide (letters.DIGITS)
        encoded = pc.replace_substring_regex(responses.take(pa.array(rest)), DIGITS, "0").dictionary_encode()
        text_index = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
        pairs, inverse = np.unique(text_index * 64 + n_options[rest], return_inverse=True)
        dictionary = encoded.dictionary.to_pylist()
        parsed = np.array([_letter_code(parse_letter(dictionary[p // 64], LETTERS[: p % 64])) for p in pairs],
                          dtype=np.int64)
        out[rest] = parsed[inverse.ravel()]
        if options is not None:  # the option texts (digits kept: "T2-weighted") only where they can change it
            _reparse_with_options(responses, n_options, options, rest, out)
    return out


# a letter or option number, then a gap and a word, or a correction marker: a superset (in the raw text) of
# letters.needs_options' pairs and corrections
_LETTER_THEN_TEXT = (
    r"(?:(?:^|[^\p{L}\p{N}])[A-Za-z1-5\x{FF11}-\x{FF15}\x{FF21}-\x{FF3A}\x{FF41}-\x{FF5A}\x{0410}-\x{0414}"
    r"\x{0391}-\x{0395}]|(?:^|[^\p{L}\p{N}])(?i:ii|iii|iv)|(?i:option|choice))"  # a letter, roman or "option"
    r"[ )\]:.,\-–—(=*_\x{FF08}\x{FF09}\x{FF0C}\x{FF0E}\x{FF1A}\x{3000}]{1,12}[\p{L}\p{N}]"  # a gap, a word
    r"|(?i:actually|scratch\s+that|i\s+mean|on\s+second\s+thought|on\s+reflection|wait|correction|"
    r"make\s+that|change\s+(?:that|my\s+answer)\s+to|let\s+me\s+correct"  # a correction may name a text
    r"|(?:last|final)\s+(?:option|one)"  # "the last option": a letter only with the option count
    r"|[✔✓✅☑❌✗✘✖×]|[:\-–—|,(]\s*(?:yes|no|correct|incorrect)\b)")  # a checklist of option texts
_LONE_LETTER = r"(?:^|[^\p{L}\p{N}])[A-Za-z1-9](?:[^\p{L}\p{N}]|$)"  # "Hepatitis B", "Type A fracture", "BI-RADS 3"


def _reparse_with_options(responses, n_options: np.ndarray, options, rows: np.ndarray, out: np.ndarray) -> None:
    """Parse again, with the item's option texts, the rows where they can change the letter (no letter found,
    or an option holding a one-letter word): once per distinct (text, options, option count)."""
    taken = options.take(pa.array(rows)).combine_chunks() if isinstance(options, pa.ChunkedArray) \
        else options.take(pa.array(rows))
    # vectorised first cut (rows with no letter, or an option with a lone letter: a superset of needs_options)
    letter_word = pc.match_substring_regex(pc.list_flatten(taken), _LONE_LETTER)
    parents = np.asarray(pc.list_parent_indices(taken), dtype=np.int64)
    flags = np.asarray(pc.fill_null(letter_word, False).to_numpy(zero_copy_only=False), dtype=bool)
    has_letter_word = np.bincount(parents[flags], minlength=len(rows)) > 0
    has_options = _np_bool(pc.greater(pc.fill_null(pc.list_value_length(taken), 0), 0))
    # letters-v7: a letter followed by text that may be another option's ("B: Pneumothorax", letters.needs_options)
    may_pair = _np_bool(pc.match_substring_regex(responses.take(pa.array(rows)), _LETTER_THEN_TEXT))
    first_cut = np.flatnonzero(has_options & ((out[rows] < 0) | has_letter_word | may_pair))
    if not len(first_cut):
        return
    item_options = taken.take(pa.array(first_cut)).to_pylist()
    texts = responses.take(pa.array(rows[first_cut])).to_pylist()
    parsed: dict[tuple, int] = {}
    for k, text, opts in zip(first_cut, texts, item_options):
        row = rows[k]
        if not needs_options(None if out[row] < 0 else LETTERS[out[row]], opts, text):
            continue
        pair = (text, tuple(opts), int(n_options[row]))
        if pair not in parsed:
            parsed[pair] = _letter_code(parse_letter(text, LETTERS[:pair[2]], pair[1]))
        out[row] = parsed[pair]


def _letter_code(letter: str | None) -> int:
    return -1 if letter is None else LETTERS.index(letter)

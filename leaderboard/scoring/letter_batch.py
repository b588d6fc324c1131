"""Which batch rows need a second parse with the item's option texts (rules letters-v7 and -v8).

Batch scorers parse each distinct response once without options (digits zeroed, letters.DIGITS) and again with its
item's option texts only where those can change the letter. `needs_options` (one row) and `needs_options_batch`
(an Arrow column, vectorised) say where. Both read the raw text (NFKC-normalised) and never normalise it the way
parse_letter does: every test is a superset, on the raw text, of what parse_letter reads with the options, so a
row they pass over parses alike with and without them (tests/test_letters_options_gate.py pins this on every labelled
corpus). The options can change the letter only

1. when no letter was found (step 4 may name an option by its text);
2. when an option's text holds a one-letter word ("Hepatitis B"; also in another name of it, "hemophilia b"): a
   letter inside a mention of it is that option's text;
3. when an option holds a number word ("BI-RADS 3", "Mobitz II") and the response may state a number ("Answer: 3",
   a bare "3", "第3个"): a number that is an option's word names no option;
4. when a letter, number or ordinal is followed by a word that may open a mention of an option ("B: Pneumothorax",
   letter_pairs.py; "A. Psoriasis – ..." closing an analysis; "E. coli");
5. (letters-v9) when a conclusion phrase ("consistent with", "diagnostic of", ...; letter_pairs.CONCLUSION_WORDS) is
   followed by a word that may open a mention of an option (as in 4): it may conclude another option than the letter;
6. when the response may correct itself ("Actually, it's <text>", letter_corrections.py) or holds a checklist of
   verdict lines ("Pneumothorax ❌\\nPleural effusion ✅"), or think tags or struck-out text (which change what is
   read), or names an option by its ordinal ("the first option: ...").

A word "may open a mention" when its folded form is a word of one of the row's options (or that word with a plural
ending, a Latin plural, a short form or a word of another name of it: option_aliases.py), or it is one character,
a roman numeral, non-ASCII, or holds two capitals (an initialism: "ARDS", "PsA").
"""
from __future__ import annotations

import functools
import unicodedata
from typing import Sequence

import numpy as np
import re2

from .option_aliases import _SHORT_WORDS
from .letter_pairs import CONCLUSION_WORDS
from .option_synonyms import synonyms
from .option_text import _LATIN_PLURALS, fold

_NOT_WORD = r"[^\p{L}\p{N}]"
# raw characters that are, or become when read (markup, spaces), the gap between a letter and an option's text
_GAP = (r"[ )\]:.,\-–—(=*_`#$>\\\t\x0b\x0c\r\x1c-\x1f\x85\xa0\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}"
        r"\x{205f}\x{3000}]+")
# a letter, option number or roman numeral (or a Cyrillic/Greek letter after an answer cue), a gap, then a word
# letters-v9: or a conclusion phrase and an article ("... most consistent with a |deep vein thrombosis"; letter_pairs),
# its words apart by anything that is not an ASCII letter or digit (the raw text's markup and spaces; a superset of
# what is read, in classes small enough for RE2's DFA)
PAIR = (r"(?:(?:^|" + _NOT_WORD + r"|\p{Han})(?:[A-Za-z0-9]|(?i:ii|iii|iv)|[АБВГДΑΒΓΔΕ])" + _GAP + r"|(?i:" + CONCLUSION_WORDS.replace(" ", "[^a-z0-9]+")
        + r")(?:[^A-Za-z0-9]+(?i:a|an|the))?[^A-Za-z0-9]+)([\p{L}\p{N}'’]+)")
# what parse_letter reads differently once the raw text is normalised, or reads with the options in any case
RISKY = r"(?i)</?think|~~|[\x00-\x02]|[\"“”](?:diagnosis|answer_text|option_text|option_name|label)[\"“”]"  # v8: JSON fields
CORRECTION = (r"(?i)actually|scratch|i" + _NOT_WORD + r"+mean|second" + _NOT_WORD + r"+thought|reflection|wait|"
              r"correction|let" + _NOT_WORD + r"+me" + _NOT_WORD + r"+correct|make" + _NOT_WORD + r"+that|change" +
              _NOT_WORD + r"+(?:that|my)|sorry|更正|纠正|改为|改选|应为|应该为|不对|错了|重新|(?:\.\.\.|…)" + _NOT_WORD + r"*no")  # v8, v10
ORDINAL = (r"(?i)(?:first|second|third|fourth|fifth|last|final)" + _NOT_WORD + r"+(?:option|one)|(?:option|choice)"
           + _NOT_WORD + r"+(?:one|two|three|four|five)")
NUMBER = (r"(?i)answer|choose|pick|select|(?:final|correct|right|best)" + _NOT_WORD + r"+(?:option|choice)|第|^"
          + _NOT_WORD + r"*[0-9]" + _NOT_WORD + r"*$")  # v11: "The correct option is 1."
VERDICT = (r"(?i)(?:yes|no|correct|true|false|wrong|unlikely)(?:[^A-Za-z]|$)|[-–—:|,(][^\p{L}\p{N}\n]*(?:less|excluded|"
           r"ruled|not)|[✔✓✅☑❌✗✘✖×🚫]|不正确|不正確|错误|錯誤|不符合|不对|不對|排除|除外")
_NUMBER_WORDS = frozenset("123456789") | {"i", "ii", "iii", "iv", "v"}
_ROMANS = frozenset({"ii", "iii", "iv"})
_JOINING = frozenset("_'’`´")  # with letters and digits: what keeps a letter inside a word


def _joins(ch: str) -> bool:
    return bool(ch) and (ch.isalnum() or ch in _JOINING)


@functools.lru_cache(maxsize=65536)
def _has_lone_letter(option: str) -> bool:
    """Does the option hold an ASCII letter standing alone (it folds to a one-letter word: "Hepatitis B")?"""
    return any(ch.isascii() and ch.isalpha() and not _joins(option[i - 1:i] if i else "") and not _joins(option[i + 1:i + 2])
               for i, ch in enumerate(option))


def _alnum_runs(text: str) -> list[str]:
    """The runs of str.isalnum() characters."""
    return "".join(ch if ch.isalnum() else " " for ch in text).split()
_ZERO = str.maketrans("123456789", "000000000")  # digits read as 0 on both sides: batch callers zero them (DIGITS)


@functools.lru_cache(maxsize=1)
def _compiled() -> dict:
    return {name: re2.compile(pattern) for name, pattern in
            (("pair", PAIR), ("risky", RISKY), ("correction", CORRECTION), ("ordinal", ORDINAL),
             ("number", NUMBER), ("verdict", VERDICT))}


@functools.lru_cache(maxsize=65536)
def option_facts(option: str | None) -> tuple[bool, bool, frozenset]:
    """(holds a one-letter word, holds a number word, the folded words, digits as 0, a mention of it may open with:
    its words, the words of its other names and short forms; `word_keys` adds the plural endings)."""
    words = fold(option or "").text.split()
    names = [name.split() for name in synonyms(" ".join(words))] if words else []
    letter_word = any(len(w) == 1 and w.isascii() and w.isalpha() for ws in [words] + names for w in ws)  # not "肺"
    number_word = any(w in _NUMBER_WORDS for w in _alnum_runs((option or "").lower()))
    openers = set(words).union(*names)
    openers.update(short for long, short in _SHORT_WORDS.items() if long in openers)
    return letter_word, number_word, frozenset(w.translate(_ZERO) for w in openers)


@functools.lru_cache(maxsize=65536)
def word_keys(word: str) -> frozenset | None:
    """The folded words (digits as 0) a raw word after a letter may stand for as a mention's first word, with and
    without a plural ending ("s", "es", a Latin plural: option_text); None when it may open a mention of any option
    (one character, a roman numeral, non-ASCII, or two capitals or more: an initialism)."""
    folded = fold(word).text.split()
    if not folded or len(folded[0]) == 1 or not word.isascii() or folded[0] in _ROMANS \
            or sum(c.isupper() for c in word) >= 2:
        return None
    x = folded[0].translate(_ZERO)
    keys = {x, x + "s", x + "es", x[:-1] if x.endswith("s") else x, x[:-2] if x.endswith("es") else x}
    keys.update(x[:-len(plural)] + single for single, plural in _LATIN_PLURALS if x.endswith(plural))
    return frozenset(keys)


def needs_options(found_without: str | None, options: Sequence[str] | None, text: str | None = None) -> bool:
    """Can the option texts change what `parse_letter` found without them (the rules in this module's docstring;
    all of them assumed when `text` is not given)? Batch callers parse each distinct text once without options
    (digits zeroed, see DIGITS) and again with its item's options only where this is true."""
    if not options:
        return False
    if found_without is None or text is None or any(_has_lone_letter(o or "") for o in options):
        return True  # the last: a one-letter word (a quick look; option_facts reads every option in full)
    facts = [option_facts(o) for o in options]
    if any(f[0] for f in facts):
        return True
    raw = unicodedata.normalize("NFKC", text)
    rx = _compiled()
    if rx["risky"].search(raw) or rx["correction"].search(raw) or rx["ordinal"].search(raw):
        return True
    if any(f[1] for f in facts) and rx["number"].search(raw):
        return True
    if "\n" in raw and rx["verdict"].search(raw):
        return True
    openers = frozenset().union(*(f[2] for f in facts))
    for m in rx["pair"].finditer(raw):
        keys = word_keys(m.group(1))
        if keys is None or not keys.isdisjoint(openers):
            return True
    return False


def needs_options_batch(texts, options, found: np.ndarray, zeroed=None, rows=None) -> np.ndarray:
    """`needs_options` for each row of an Arrow string column `texts` (no nulls) with its list-of-strings `options`;
    `found[k]` says whether the parse without options found a letter. `zeroed` (optional) is `texts` with its digits
    zeroed (letters.DIGITS), dictionary-encoded, as batch callers already hold it: every test reads each distinct
    zeroed text once (the tests are blind to digit values: digits read as 0 on both sides). `rows` (optional,
    sorted): `options` is a longer column and these of its rows are the texts' (no copy of the lists is taken)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    n = len(found)
    if n == 0:
        return np.zeros(0, dtype=bool)
    if zeroed is None or not isinstance(zeroed, pa.DictionaryArray):
        from .digit_zeroing import zero_digits

        zeroed = pc.dictionary_encode(zero_digits(texts))
    text_ids = zeroed.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    distinct = pc.utf8_normalize(zeroed.dictionary, form="NFKC")
    if isinstance(options, pa.ChunkedArray):
        options = options.combine_chunks()
    lengths = pc.fill_null(pc.list_value_length(options), 0).to_numpy(zero_copy_only=False).astype(np.int64)
    flat = pc.list_flatten(options)
    parents = np.asarray(pc.list_parent_indices(options), dtype=np.int64)
    encoded = pc.dictionary_encode(flat)
    option_ids = pc.fill_null(encoded.indices, -1).to_numpy(zero_copy_only=False).astype(np.int64)
    if rows is not None:  # the options of the rows asked about, each renumbered by its place in `rows`
        position = np.full(len(lengths), -1, dtype=np.int64)
        position[rows] = np.arange(len(rows))
        parents = position[parents]
        option_ids = option_ids[parents >= 0]
        parents = parents[parents >= 0]
        lengths = lengths[rows]
    facts = [option_facts(o) for o in encoded.dictionary.to_pylist()] + [option_facts(None)]  # -1: a null option
    letter_word = np.bincount(parents[np.array([f[0] for f in facts])[option_ids]], minlength=n) > 0
    number_word = np.bincount(parents[np.array([f[1] for f in facts])[option_ids]], minlength=n) > 0

    def matches(pattern: str) -> np.ndarray:  # per row, read once per distinct text
        found_in = pc.fill_null(pc.match_substring_regex(distinct, pattern), False).to_numpy(zero_copy_only=False)
        return np.asarray(found_in, dtype=bool)[text_ids]

    has = lengths > 0
    need = has & (~found | letter_word | matches(RISKY) | matches(CORRECTION) | matches(ORDINAL)
                  | (number_word & matches(NUMBER)) | (matches("\n") & matches(VERDICT)))
    rest = np.flatnonzero(has & ~need)
    if len(rest):
        need[rest] = _pair_opens_mention(distinct, text_ids, rest, option_ids, parents, facts)
    return need


def _pair_opens_mention(distinct, text_ids, rows, option_ids, parents, facts) -> np.ndarray:
    """Per row in `rows`: is some letter of its text followed by a word that may open a mention of one of the row's
    options (rule 4)? The words after letters are read once per distinct text (vectorised: each match of PAIR
    becomes "\\x01word\\x02"), then compared once per distinct (text, option)."""
    import pyarrow.compute as pc

    used = np.unique(text_ids[rows])
    marked = pc.replace_substring_regex(distinct.take(used), pattern=PAIR, replacement="\x01\\1\x02")
    pieces = pc.split_pattern(marked, pattern="\x01")
    words = pc.extract_regex(pc.list_flatten(pieces), pattern="^(?P<w>[^\x02]*)\x02")
    piece_text = used[np.asarray(pc.list_parent_indices(pieces), dtype=np.int64)]
    valid = np.asarray(pc.is_valid(words).to_numpy(zero_copy_only=False), dtype=bool)
    anywhere = np.zeros(len(distinct), dtype=bool)  # texts with a word that may open any option's mention
    keys: dict[int, set] = {}
    for t, word in zip(piece_text[valid], pc.struct_field(words, [0]).filter(valid).to_pylist()):
        found = word_keys(word)
        if found is None:
            anywhere[t] = True
        else:
            keys.setdefault(int(t), set()).update(found)
    out = anywhere[text_ids[rows]]
    every_key = set().union(*keys.values())
    may_open = np.array([not f[2].isdisjoint(every_key) for f in facts], dtype=bool)  # options some word may open
    in_rest = np.zeros(len(text_ids), dtype=bool)
    in_rest[rows] = True
    at = np.flatnonzero(may_open[option_ids] & in_rest[parents])  # those options, of the remaining rows
    if not len(at):
        return out
    texts = sorted(keys)
    if len(texts) * len(facts) <= 4 * len(at):  # few texts (many differ in digits only): a table text x option
        compact = np.full(len(anywhere), -1, dtype=np.int64)
        compact[texts] = np.arange(len(texts))
        table = np.array([[not keys[t].isdisjoint(f[2]) for f in facts] for t in texts], dtype=bool)
        keyed = compact[text_ids[parents[at]]]
        at, keyed = at[keyed >= 0], keyed[keyed >= 0]
        hit_rows = parents[at[table[keyed, option_ids[at]]]]
    else:  # once per distinct (text, option)
        width = len(facts)
        codes, inverse = np.unique(text_ids[parents[at]] * width + option_ids[at], return_inverse=True)
        opens = np.array([int(c) // width in keys and not keys[int(c) // width].isdisjoint(facts[int(c) % width][2])
                          for c in codes], dtype=bool)
        hit_rows = parents[at[opens[inverse.ravel()]]]
    position = np.full(len(text_ids), -1, dtype=np.int64)
    position[rows] = np.arange(len(rows))
    out[position[hit_rows]] = True
    return out

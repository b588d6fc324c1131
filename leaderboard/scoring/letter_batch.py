"""Which batch rows need a second parse with the item's option texts (rule letters-v7).

Batch scorers parse each distinct response once without options (digits zeroed, letters.DIGITS) and again with its
item's option texts only where those can change the letter: `needs_options` says where.
"""
from __future__ import annotations

import functools
from typing import Sequence

from .letter_corrections import may_correct
from .letter_pairs import may_pair
from .letter_rejections import checklist_letter
from .letter_text import answer_part, bounded, normalised
from .option_numbers import counted_numbers, names_last_option
from .option_text import fold


@functools.lru_cache(maxsize=4096)
def _has_letter_word(options: tuple) -> bool:
    """Does an option's text hold a one-letter word ("Hepatitis B", "Type A fracture") or (letters-v7) a one-digit
    word ("BI-RADS 3": a bare "3" then names no option)?"""
    return any(len(word) == 1 and (word.isalpha() or word in "123456789")
               for option in options for word in fold(option or "").text.split())


def needs_options(found_without: str | None, options: Sequence[str] | None, text: str | None = None) -> bool:
    """Can the option texts change what `parse_letter` found without them? Only when it found no letter (step 4
    may name one), when an option's text holds a one-letter word (a letter inside a mention of it is that
    option's text, not an answer letter), or (letters-v7) when the found letter is followed by text that may be
    another option's ("B: Pneumothorax", letter_pairs.py) or a correction may name one ("Actually, it's X";
    both assumed when `text` is not given). Batch callers parse
    each distinct text once without options (digits zeroed, see DIGITS) and again with its item's options only
    where this is true."""
    if not options:
        return False
    if found_without is None or _has_letter_word(tuple(options)):
        return True
    if text is None:
        return True
    base = normalised(bounded(answer_part(text)))
    if names_last_option(base) or may_correct(base):  # "the last option" (its letter depends on the caller's
        return True  # letters); "... Actually, it's <another option's text>."
    if checklist_letter(base, options, "ABCDE"[:len(options)]) not in (None, found_without):
        return True  # "Pneumothorax ❌\nPleural effusion ✅": a checklist of option texts outranks a leading letter
    # the numbers parse_letter reads with the option count ("Answer: ii. <text>"), read with every letter: a superset
    return may_pair(counted_numbers(base, "ABCDE"), found_without)

r"""Raw MedReaMM model output -> ranked diagnosis list, the way the authors' code parses it:
the text after the last `### Output ###` heading (the whole text if absent), read as a JSON / Python
list, else the quoted strings in it, else a numbered or bulleted list. Nothing parsed -> [].

Every step runs in linear time (a response is submitted text, up to 100,000 characters): the heading
split, the list literal and the numbered-list pattern were written as regexes that backtrack
quadratically on crafted text ("#" x 10^5, "[" x 10^5, " \n" x 10^5) and froze the server; they are
now explicit scans with the same results."""
from __future__ import annotations

import ast
import json
import re
import unicodedata

OUTPUT_WORD = re.compile(r"output", re.I)  # the word of the `#+\s*Output\s*#*` heading
QUOTED = re.compile(r'"([^"\n]{1,300})"')
# `^\s*marker\s+(.+?)\s*$` (the authors' pattern) backtracks quadratically over whitespace runs; the same
# items come from horizontal whitespace only and a greedy line, stripped afterwards.
NUMBERED = re.compile(r"^[^\S\n]*(?:\d{1,2}[.)]|[-*•])\s+(.+)$", re.M)
MAX_DIAGNOSES = 10


def after_last_heading(text: str) -> str:
    r"""`re.split(r"#+\s*Output\s*#*", text, flags=re.I)[-1]` (the whole text when there is no heading),
    found by scanning back from each "output" over whitespace to a run of "#": linear time."""
    consumed, tail_start = 0, None
    for word in OUTPUT_WORD.finditer(text):
        if word.start() < consumed:
            continue
        i = word.start()
        while i > consumed and text[i - 1].isspace():
            i -= 1
        if i == consumed or text[i - 1] != "#":
            continue
        end = word.end()
        while end < len(text) and text[end].isspace():
            end += 1
        while end < len(text) and text[end] == "#":
            end += 1
        consumed = tail_start = end
    return text if tail_start is None else text[tail_start:]


def _list_literal(text: str) -> str | None:
    r"""`re.search(r"\[.*\]", text, re.S)`: from the first "[" to the last "]" after it."""
    start = text.find("[")
    end = text.rfind("]")
    return text[start:end + 1] if start >= 0 and end > start else None


def parse_response(text: str) -> list[str]:
    tail = after_last_heading(text)
    tail = re.sub(r"```(?:json|python)?", "", tail)
    literal = _list_literal(tail)
    if literal:
        for loader in (json.loads, ast.literal_eval):
            try:
                value = loader(literal)
            except (ValueError, SyntaxError, RecursionError, MemoryError, TypeError):
                continue
            if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
                return [v.strip() for v in value if v.strip()]
    quoted = QUOTED.findall(tail)
    if quoted:
        return [q.strip() for q in quoted if q.strip()]
    numbered = [n.strip() for n in NUMBERED.findall(tail)]
    return [re.sub(r"\*\*|__", "", n).strip() for n in numbered if n]


def normalise(term: str) -> str:
    """The form used to drop exact duplicates: NFKC, casefolded, single spaces, no edge punctuation."""
    text = unicodedata.normalize("NFKC", term).casefold()
    text = re.sub(r"\s+", " ", text)
    return text.strip(" \t.,;:-*\"'")


def ranked_list(items: list[str], keys: dict[str, str] | None = None) -> list[str]:
    """The first 10 submitted items, then exact duplicates (after normalisation) and blanks dropped,
    later items moving up. Truncating first means padding a list with repeats never pulls an 11th
    item into the scored ten. `keys` (item -> its normalised form) saves normalising repeated items."""
    seen, out = set(), []
    for item in items[:MAX_DIAGNOSES]:
        key = keys[item] if keys is not None else normalise(item)
        if key and key not in seen:
            seen.add(key)
            out.append(item.strip())
    return out


class RankedLists:
    """Every case's ranked list as term numbers: `ids[c, i]` indexes `terms` (-1 = empty slot)."""

    def __init__(self, ids, terms: list[str]):
        self.ids, self.terms = ids, terms

    def lists(self) -> list[list[str]]:
        return [[self.terms[i] for i in row if i >= 0] for row in self.ids.tolist()]


def ranked_matrix(lists) -> RankedLists:
    """`ranked_list` of every case of a pyarrow list<string> array (null = no prediction), vectorised:
    each distinct item is normalised and stripped once, then duplicates (an earlier slot with the same
    normalised key) and blanks are dropped and later items move up, with numpy over (cases, 10)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    n = len(lists)
    flat = pc.list_flatten(lists)
    parent = np.asarray(pc.list_parent_indices(lists), dtype=np.int64)
    starts = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(parent, minlength=n), out=starts[1:])
    position = np.arange(len(parent)) - starts[parent]
    beyond = position >= MAX_DIAGNOSES
    if beyond.any():  # the first ten items of each list (pc.list_slice copies every list, even when none is longer)
        flat, parent, position = flat.filter(pa.array(~beyond)), parent[~beyond], position[~beyond]
    distinct = pc.unique(flat)
    items = distinct.to_pylist()
    item_ids = np.asarray(pc.index_in(flat, value_set=distinct), dtype=np.int64)
    keys: dict[str, int] = {}
    stripped: dict[str, int] = {}
    key_of = np.empty(len(items), dtype=np.int64)
    term_of = np.empty(len(items), dtype=np.int64)
    for d, item in enumerate(items):
        key = normalise(item)
        key_of[d] = keys.setdefault(key, len(keys)) if key else -1
        term_of[d] = stripped.setdefault(item.strip(), len(stripped))
    key_matrix = np.full((n, MAX_DIAGNOSES), -1, dtype=np.int64)
    term_matrix = np.full((n, MAX_DIAGNOSES), -1, dtype=np.int64)
    key_matrix[parent, position] = key_of[item_ids]
    term_matrix[parent, position] = term_of[item_ids]
    keep = key_matrix >= 0
    for i in range(1, MAX_DIAGNOSES):  # a repeat of any earlier slot's key is dropped
        keep[:, i] &= ~(key_matrix[:, :i] == key_matrix[:, i:i + 1]).any(axis=1)
    order = np.argsort(~keep, axis=1, kind="stable")  # kept slots first, in their order
    ids = np.take_along_axis(np.where(keep, term_matrix, -1), order, axis=1)
    return RankedLists(ids, list(stripped))


def ranked_lists(lists: list[list[str]]) -> list[list[str]]:
    """`ranked_list` of every case (Python lists; see `ranked_matrix` for the scorer's vectorised form)."""
    import pyarrow as pa

    return ranked_matrix(pa.array(lists, type=pa.list_(pa.string()))).lists()

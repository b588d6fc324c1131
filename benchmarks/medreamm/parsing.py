r"""Raw MedReaMM model output -> ranked diagnosis list, the way the authors' code parses it, extended to
the shapes real models write (issue 27): the text after the last `### Output ###` heading (the whole text
if absent), read as

1. a JSON / Python list of strings, or of objects whose diagnosis-like field (`diagnosis`, `disease`,
   `name`, ...) is taken ([{"diagnosis": "Multiple myeloma", "probability": 0.7}, ...]);
2. else the double-quoted strings in it;
3. else a numbered or bulleted list;
4. else a single-quoted list whose items hold apostrophes (['Hodgkin's lymphoma', 'Graves' disease']);
5. else, under the heading only and with no bracketed list, one item per line, or on a single line items separated by commas or
   semicolons (an item of more than 12 words is prose, not a list: nothing is read).

Items that only echo the prompt's template ("Diagnosis A", "Diagnosis B") are dropped: an echoed template
alone is a parse failure ([]). Items keep their raw text; `diagnosis_name` strips appended codes,
probabilities and explanations ("Pneumonia (CA40)", "Sepsis - 60%", "HCC: arterial washout") for
deduplication, coding and embedding.

Every step runs in linear time (a response is submitted text, up to 100,000 characters) on RE2 or a
plain scan: the heading split, the list literal and the numbered-list pattern were once regexes that
backtracked quadratically on crafted text ("#" x 10^5, "[" x 10^5, " \n" x 10^5)."""
from __future__ import annotations

import ast
import json
import unicodedata

import re2

# Python's `\s` (Unicode whitespace); RE2's `\s` is ASCII only
_WS = r"\t\n\x0b\x0c\r\x1c-\x1f \x85\xa0\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}"
OUTPUT_WORD = re2.compile(r"(?i)output")  # the word of the `#+\s*Output\s*#*` heading
QUOTED = re2.compile(r'"([^"\n]{1,300})"')
# `^\s*marker\s+(.+?)\s*$` (the authors' pattern) backtracks quadratically over whitespace runs; the same
# items come from horizontal whitespace only and a greedy line, stripped afterwards.
NUMBERED = re2.compile(rf"(?m)^[{_WS.replace(chr(92) + 'n', '')}]*(?:\d{{1,2}}[.)]|[-*•])[{_WS}]+(.+)$")
FENCE = re2.compile(r"```(?:json|python)?")
MAX_DIAGNOSES = 10
MAX_ITEM_WORDS = 12  # a longer "item" of a plain comma/line list is a sentence
DIAGNOSIS_FIELDS = ("diagnosis", "diagnosis_name", "standardized_pred_diagnosis", "pred_diagnosis", "disease",
                    "disease_name", "condition", "name", "dx", "label", "term", "differential")
TEMPLATE_WORDS = {"diagnosis", "disease", "dx", "condition"}


def after_last_heading(text: str) -> str:
    r"""The text after the last `#+\s*Output\s*#*` heading, case-insensitive, as the authors' split on it keeps the last
    part (the whole text when there is no heading)."""
    return _heading_tail(text)[0]


def _heading_tail(text: str) -> tuple[str, bool]:
    """(the text after the last heading, whether there is one), found by scanning back from each "output"
    over whitespace to a run of "#": linear time."""
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
    return (text, False) if tail_start is None else (text[tail_start:], True)


def _list_literal(text: str) -> str | None:
    r"""`re.search(r"\[.*\]", text, re.S)`: from the first "[" to the last "]" after it."""
    start = text.find("[")
    end = text.rfind("]")
    return text[start:end + 1] if start >= 0 and end > start else None


def _diagnosis_field(entry: dict) -> str | None:
    """The diagnosis-like string of a JSON object ({"diagnosis": ..., "probability": ...})."""
    fields = {str(k).strip().lower().replace(" ", "_"): v for k, v in entry.items()}
    for name in DIAGNOSIS_FIELDS:
        if isinstance(fields.get(name), str):
            return fields[name]
    return None


def _loaded_list(literal: str) -> list[str] | None:
    """The strings of a JSON/Python list literal: strings as they are, objects by their diagnosis field.
    None when it is no such list; [] for a list of objects none of which names a diagnosis (its keys and
    values are not diagnoses, so nothing else is read)."""
    for loader in (json.loads, ast.literal_eval):
        try:
            value = loader(literal)
        except (ValueError, SyntaxError, RecursionError, MemoryError, TypeError):
            continue
        if not isinstance(value, list) or not value:
            continue
        items = [v if isinstance(v, str) else _diagnosis_field(v) if isinstance(v, dict) else None for v in value]
        if all(isinstance(v, str) for v in items):
            return items
        if any(isinstance(v, dict) for v in value):  # objects: their keys and numbers are never diagnoses
            return [v for v in items if isinstance(v, str)]
    return None


def _single_quoted(literal: str) -> list[str]:
    """['Hodgkin's lymphoma', 'Graves' disease']: items split at a quote, a comma and a quote (apostrophes
    inside an item are never followed by a comma and a quote). Not a list of that shape -> []."""
    inner = literal[1:-1].strip().rstrip(",").strip()
    if len(inner) < 2 or inner[0] not in "'‘’" or inner[-1] not in "'‘’":
        return []
    return re2.split(r"['’][" + _WS + r"]*,[" + _WS + r"]*['‘’]", inner[1:-1])


def _plain_list(tail: str) -> list[str]:
    """One item per line, or a single line split at semicolons (else commas); prose -> []."""
    lines = [line.strip() for line in tail.strip().splitlines() if line.strip()]
    if len(lines) == 1:
        sep = ";" if ";" in lines[0] else ","
        lines = [part.strip() for part in lines[0].split(sep) if part.strip()]
    items = [line.rstrip(".").strip() for line in lines]
    if not items or any(len(item.split()) > MAX_ITEM_WORDS for item in items):
        return []
    return items


def is_template(item: str) -> bool:
    """An echo of the prompt's placeholder: "Diagnosis A", "Diagnosis 2", "Disease B"."""
    words = item.split()
    return (len(words) == 2 and words[0].lower() in TEMPLATE_WORDS
            and (words[1].isdigit() or (len(words[1]) == 1 and words[1].isalpha())))


def _unbold(item: str) -> str:
    return item.replace("**", "").replace("__", "").strip()


def parse_response(text: str) -> list[str]:
    tail, has_heading = _heading_tail(text)
    tail = FENCE.sub("", tail)
    literal = _list_literal(tail)
    loaded = _loaded_list(literal) if literal else None
    if loaded is not None and (loaded or "{" in literal):
        return _kept(loaded)  # a list of strings, or of objects (whose other fields are not diagnoses)
    items = QUOTED.findall(tail)
    if not items:
        items = [_unbold(n) for n in NUMBERED.findall(tail)]
    if not items and literal:
        items = _single_quoted(literal)
    if not items and has_heading and not literal:  # "[]", "[1, 2]": a list that names nothing
        items = [_unbold(n) for n in _plain_list(tail)]
    return _kept(items)


def _kept(items: list[str]) -> list[str]:
    return [item.strip() for item in items if item.strip() and not is_template(item.strip())]


def diagnosis_name(item: str) -> str:
    """The diagnosis an item names, without what models append to it: an explanation after " - ", ": "
    or " | " ("Hepatocellular carcinoma: arterial washout", "Sepsis - 60%"), a trailing parenthesis that
    holds a code or a likelihood ("Pneumonia (CA40)", "Appendicitis (70%)", "(probability: 0.5)"), a
    trailing number or percentage. Markup is dropped; hyphenated names ("Guillain-Barré") are kept."""
    name = _unbold(item)
    depth, cut = 0, len(name)
    for i, ch in enumerate(name):
        depth += (ch == "(") - (ch == ")")
        if depth == 0 and (name.startswith((" - ", " – ", " — ", " | "), i) or (ch == ":" and name[i + 1:i + 2] in (" ", ""))):
            cut = i
            break
    name = name[:cut].strip()
    while name.endswith(")") and "(" in name:
        inner = name[name.rfind("(") + 1:-1]
        if not _is_code_or_likelihood(inner):
            break
        name = name[:name.rfind("(")].strip()
    words = name.split()
    while len(words) > 1 and _is_likelihood(words[-1]):
        words.pop()
    return " ".join(words).strip(" \t,;.")


def _is_likelihood(token: str) -> bool:
    """"60%", "0.6", "p=0.3", "high" and the like; not a bare integer ("Trisomy 21", "Type 2")."""
    token = token.strip(",;").lower()
    if token in ("high", "low", "moderate", "medium", "likely", "unlikely", "possible", "probable"):
        return True
    bare = token
    for prefix in ("p=", "p:", "probability=", "probability:", "likelihood:"):
        token = token.removeprefix(prefix)
    number = token.removesuffix("%")
    if not number.replace(".", "", 1).isdigit():
        return False
    return token != bare or token.endswith("%") or "." in number


def _is_code_or_likelihood(inner: str) -> bool:
    """The text of a trailing parenthesis: an ICD code ("CA40", "2B31.2", "ICD-11: 5A70"), or a likelihood
    ("70%", "probability: 0.5", "high likelihood", "less likely")."""
    words = inner.replace(":", " ").replace("=", " ").split()
    if not words:
        return False
    last = words[-1]
    code = (4 <= len(last) <= 12 and last.replace(".", "").replace("&", "").replace("/", "").isalnum()
            and any(c.isdigit() for c in last) and any(c.isalpha() for c in last) and last.upper() == last)
    lead = {"icd", "icd-11", "icd11", "code", "probability", "likelihood", "confidence", "p", "less", "more", "most"}
    if code or _is_likelihood(last):
        return all(w.lower() in lead for w in words[:-1])
    return len(words) <= 2 and words[-1].lower() in ("likely", "likelihood", "probability", "unlikely")


def normalise(term: str) -> str:
    """The form used to drop exact duplicates: NFKC, casefolded, single spaces, no edge punctuation."""
    text = " ".join(unicodedata.normalize("NFKC", term).casefold().split())
    return text.strip(" \t.,;:-*\"'")


def ranked_list(items: list[str], keys: dict[str, str] | None = None) -> list[str]:
    """The first 10 submitted items, then exact duplicates (after normalisation) and blanks dropped,
    later items moving up. Truncating first means padding a list with repeats never pulls an 11th
    item into the scored ten. `keys` (item -> its normalised form) saves normalising repeated items."""
    seen, out = set(), []
    for item in items[:MAX_DIAGNOSES]:
        key = keys[item] if keys is not None else normalise(diagnosis_name(item))
        if key and key not in seen:
            seen.add(key)
            out.append(diagnosis_name(item))
    return out


class RankedLists:
    """Every case's ranked list as term numbers: `ids[c, i]` indexes `terms` (-1 = empty slot); `terms` are
    diagnosis names (coded and embedded), `raw[t]` the submitted text term t was first read from."""

    def __init__(self, ids, terms: list[str], raw: list[str] | None = None):
        self.ids, self.terms = ids, terms
        self.raw = raw if raw is not None else list(terms)

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
    raw: dict[int, str] = {}
    key_of = np.empty(len(items), dtype=np.int64)
    term_of = np.empty(len(items), dtype=np.int64)
    for d, item in enumerate(items):
        name = diagnosis_name(item)  # codes, likelihoods and explanations off; the raw item stays in `raw`
        key = normalise(name)
        key_of[d] = keys.setdefault(key, len(keys)) if key else -1
        term_of[d] = stripped.setdefault(name, len(stripped))
        raw.setdefault(term_of[d], item)
    key_matrix = np.full((n, MAX_DIAGNOSES), -1, dtype=np.int64)
    term_matrix = np.full((n, MAX_DIAGNOSES), -1, dtype=np.int64)
    key_matrix[parent, position] = key_of[item_ids]
    term_matrix[parent, position] = term_of[item_ids]
    keep = key_matrix >= 0
    for i in range(1, MAX_DIAGNOSES):  # a repeat of any earlier slot's key is dropped
        keep[:, i] &= ~(key_matrix[:, :i] == key_matrix[:, i:i + 1]).any(axis=1)
    order = np.argsort(~keep, axis=1, kind="stable")  # kept slots first, in their order
    ids = np.take_along_axis(np.where(keep, term_matrix, -1), order, axis=1)
    return RankedLists(ids, list(stripped), [raw[t] for t in range(len(stripped))])


def ranked_lists(lists: list[list[str]]) -> list[list[str]]:
    """`ranked_list` of every case (Python lists; see `ranked_matrix` for the scorer's vectorised form)."""
    import pyarrow as pa

    return ranked_matrix(pa.array(lists, type=pa.list_(pa.string()))).lists()

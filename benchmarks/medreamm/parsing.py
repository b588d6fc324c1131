"""Raw MedReaMM model output -> ranked diagnosis list, the way the authors' code parses it:
the text after the last `### Output ###` heading (the whole text if absent), read as a JSON / Python
list, else the quoted strings in it, else a numbered or bulleted list. Nothing parsed -> []."""
from __future__ import annotations

import ast
import json
import re
import unicodedata

HEADING = re.compile(r"#+\s*Output\s*#*", re.I)
QUOTED = re.compile(r'"([^"\n]{1,300})"')
NUMBERED = re.compile(r"^\s*(?:\d{1,2}[.)]|[-*•])\s+(.+?)\s*$", re.M)
LIST_LITERAL = re.compile(r"\[.*\]", re.S)
MAX_DIAGNOSES = 10


def parse_response(text: str) -> list[str]:
    parts = HEADING.split(text)
    tail = parts[-1] if len(parts) > 1 else text
    tail = re.sub(r"```(?:json|python)?", "", tail)
    literal = LIST_LITERAL.search(tail)
    if literal:
        for loader in (json.loads, ast.literal_eval):
            try:
                value = loader(literal.group(0))
            except (ValueError, SyntaxError, RecursionError, MemoryError, TypeError):
                continue
            if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
                return [v.strip() for v in value if v.strip()]
    quoted = QUOTED.findall(tail)
    if quoted:
        return [q.strip() for q in quoted if q.strip()]
    numbered = NUMBERED.findall(tail)
    return [re.sub(r"\*\*|__", "", n).strip() for n in numbered if n.strip()]


def normalise(term: str) -> str:
    """The form used to drop exact duplicates: NFKC, casefolded, single spaces, no edge punctuation."""
    text = unicodedata.normalize("NFKC", term).casefold()
    text = re.sub(r"\s+", " ", text)
    return text.strip(" \t.,;:-*\"'")


def ranked_list(items: list[str]) -> list[str]:
    """The first 10 submitted items, then exact duplicates (after normalisation) and blanks dropped,
    later items moving up. Truncating first means padding a list with repeats never pulls an 11th
    item into the scored ten."""
    seen, out = set(), []
    for item in items[:MAX_DIAGNOSES]:
        key = normalise(item)
        if not key or key in seen:
            continue
        seen.add(key)
        out.append(item.strip())
    return out

"""One multiple-choice item of X-PCR (a chain's `qa_pairs` entry or a cross-modal case's item): stem,
options, gold letter, tier; plus the id bookkeeping and the disease derived from Disease Diagnosis items."""
from __future__ import annotations

from typing import Any

from dataset_builders.fields import FieldReader
from .taxonomy import LETTERS, NON_DIAGNOSES, OptionError, answer_letter, split_options, tier_code

QA_TIER_FIELDS = ("tier", "difficulty", "level", "expertise", "expertise_level")
QA_OPTION_FIELDS = ("options", "choices")
YES_NO_TYPES = ("yes", "judg", "bool", "true", "binary")


def claim(seen: dict[str, str], key: str, where: str, f: FieldReader, what: str) -> bool:
    """Register an id; a duplicate is reported (once, for the row or case, not again for its items)."""
    if key in seen:
        f.problem(f"duplicate {what} {key!r} (first seen at {seen[key]})")
        return False
    seen[key] = where
    return True


def parse_item(f: FieldReader, qa: Any, where: str) -> dict | None:
    """One multiple-choice item -> {question (stem), options, letter, tier, sub_label, question_type};
    None (problems logged, located by `where`) when it cannot be used."""
    if not isinstance(qa, dict):
        f.problem(f"{where} must be an object, got {type(qa).__name__}")
        return None
    row_ok, f.ok = f.ok, True
    question = f.string(qa.get("question"), f"{where}.question", required=True)
    stem, options = _options(f, qa, question, where) if question is not None else (None, None)
    letter = _letter(f, qa.get("answer"), options, where)
    sub_label = f.string(qa.get("sub_label"), f"{where}.sub_label")
    tier = _tier(f, f.first(qa, *QA_TIER_FIELDS), where)
    question_type = f.string(f.first(qa, "question_type", "type"), f"{where}.question_type")
    item_ok, f.ok = f.ok, row_ok and f.ok
    if not item_ok:
        return None
    return {"question": stem, "options": options, "letter": letter, "sub_label": sub_label, "tier": tier,
            "question_type": question_type}


def _options(f: FieldReader, qa: dict, question: str, where: str) -> tuple[str, list[str] | None]:
    try:
        split = split_options(question)
    except OptionError as exc:
        f.problem(f"{where}.question: {exc}")
        return question, None
    stem, options = split if split is not None else (question, None)
    given = f.first(qa, *QA_OPTION_FIELDS)
    if given is not None:  # an explicit options field wins over options parsed from the text
        if isinstance(given, dict):
            given = [given[k] for k in sorted(given)]
        if not isinstance(given, list) or not all(isinstance(o, (str, int, float)) for o in given):
            f.problem(f"{where}.options must be a list of strings")
            return stem, None
        options = [str(o).strip() for o in given]
    if options is None:
        kind = str(qa.get("question_type") or "").casefold()
        if not any(word in kind for word in YES_NO_TYPES):
            f.problem(f"{where}.question holds no options (expected \"\\nOptions: ['a', 'b', ...]\" or lettered "
                      "lines 'A. ...') and the item has no options field")
            return stem, None
        options = ["Yes", "No"]
    if not 2 <= len(options) <= len(LETTERS):
        f.problem(f"{where} has {len(options)} options; 2-26 are supported")
        return stem, None
    if any(not o for o in options):
        f.problem(f"{where} has an empty option")
        return stem, None
    return stem, options


def _letter(f: FieldReader, answer: Any, options: list[str] | None, where: str) -> str | None:
    if isinstance(answer, (int, float)) and not isinstance(answer, bool):
        answer = str(answer)
    if isinstance(answer, list):
        f.problem(f"{where}.answer is a list; multi-answer items are not supported")
        return None
    if not isinstance(answer, str) or not answer.strip():
        f.problem(f"field '{where}.answer' is required and must be a non-empty string")
        return None
    if options is None:
        return None
    try:
        return answer_letter(answer, options)
    except OptionError as exc:
        f.problem(f"{where}.answer: {exc}")
        return None


def _tier(f: FieldReader, raw: Any, where: str) -> str | None:
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return None
    if not isinstance(raw, str):
        f.problem(f"{where}: tier must be a string, got {type(raw).__name__}")
        return None
    tier = tier_code(raw)
    if tier is None:
        f.problem(f"{where}: unknown tier {raw!r} (use R/A/S or Resident/Attending/Specialist)")
    return tier


def dd_disease(items: list[dict], answers: list[str]) -> str | None:
    """The answer text of the first Disease Diagnosis item that names a disease (see DISEASE_RULE)."""
    candidates = []
    for item, letter in zip(items, answers):
        if item["stage"] != "DD":
            continue
        text = item["options"][LETTERS.index(letter)]
        if text.strip().casefold() in NON_DIAGNOSES:
            continue
        label = (item.get("sub_label") or "").casefold()
        candidates.append((0 if ("diagnos" in label or "disease" in label) else 1, len(candidates), text))
    return min(candidates)[2] if candidates else None


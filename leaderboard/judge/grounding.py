"""Checks on a verdict before it is accepted (and ever cached): it carries this request's canary, it names
the criterion it was asked about, and the evidence it quotes is text of the candidate that is not itself an
instruction or talk about the grading. A verdict that fails is refused with its failure kind; the client asks
again within its attempt count.

Every verdict format carries three fields for this: `canary`, `criterion_id` and `evidence` (JSON keys, or
XML elements for ClinMM's diagnosis judge); each benchmark's parser returns them under those names.
"""
from __future__ import annotations

import unicodedata

import re2

from . import limits
from .safety import find_injection
from .spotlight import unmarked

MIN_QUOTE = 8  # characters (after normalising): shorter spans are found in almost any answer

# Evidence is clinical text from the answer. A quote that speaks about the grading itself (the grader, the
# rubric, a score to give, "this answer") is not evidence of anything, whatever the detector thinks of it.
# Applied to quotes only (a few hundred characters a verdict), never to candidates: a false hit costs a
# re-ask, not a redaction. RE2: the quote is the judge's text, which may echo the candidate.
_GRADING_TALK = re2.compile(
    r"(?i)\b(?:graders?|evaluators?|examiners?|assessors?|rubrics?|the\s+judges?|grading\s+(?:model|system|"
    r"instructions?)|full\s+(?:marks|credit|points)|top\s+marks|max(?:imum)?\s+(?:score|marks|points)|"
    r"perfect\s+score|highest\s+score|(?:this|the\s+above|my)\s+(?:answer|response|reply|reasoning)|"
    r"(?:give|award|assign|grant)\s+(?:this|me)\s+(?:answer|response|reply|a|the|full|maximum|top|\d))\b"
    r"|满分|最高分|打分|评委|裁判|阅卷|考官|评分员|评分者|本回答|该回答|此回答|这个回答|以上回答")
_SPACE = re2.compile(r"\s+")


class Refused(ValueError):
    """A verdict refused by a grounding rule; `kind` is the failure kind recorded."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


def normalise(text: str) -> str:
    """NFKC, datamarks removed, whitespace runs as one space, case folded: how a quote is matched."""
    text = unicodedata.normalize("NFKC", unmarked(text or ""))
    return _SPACE.sub(" ", text).strip().casefold()


def check(value: dict, canary: str, criterion_id: str | None, candidate: str | None, evidence_required: bool) -> None:
    """Refused unless `value` holds `canary`, echoes `criterion_id` (when the call has one) and, when
    evidence is required or given, quotes at least MIN_QUOTE characters of `candidate` that are not an
    instruction (`find_injection`) and do not talk about the grading."""
    if str(value.get("canary", "")).strip() != canary:
        raise Refused(limits.NO_CANARY, "the verdict lacks this request's canary token")
    if criterion_id is not None and str(value.get("criterion_id", "")).strip() != criterion_id:
        raise Refused(limits.WRONG_CRITERION, f"the verdict is about another criterion (expected {criterion_id})")
    if candidate is None:
        return
    evidence = value.get("evidence")
    quote = normalise(evidence) if isinstance(evidence, str) else ""
    if not quote and not evidence_required:
        return
    text = normalise(candidate)
    if len(quote) < min(MIN_QUOTE, len(text)) or quote not in text:
        raise Refused(limits.UNGROUNDED, "the evidence is not a quote of the candidate's text")
    if find_injection(evidence) or _GRADING_TALK.search(evidence):
        raise Refused(limits.INSTRUCTION_QUOTE, "the evidence quoted is an instruction, not clinical content")

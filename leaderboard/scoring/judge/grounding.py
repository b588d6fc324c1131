"""Checks on a verdict before it is accepted (and ever cached): it carries this request's canary, it names
the criterion it was asked about, and the evidence it quotes is text of the candidate that is not itself an
instruction or talk about the grading. A verdict that fails is refused with its failure kind; the client asks
again within its attempt count.

Every verdict format carries three fields for this: `canary`, `criterion_id` and `evidence` (JSON keys, or
XML elements where a benchmark's judge answers in XML); each benchmark's parser returns them under those names.
"""
from __future__ import annotations

import codecs
import unicodedata

import re2

from . import limits
from .safety import find_injection
from .spotlight import unmarked

MIN_QUOTE = 8  # characters (after normalising): shorter spans are found in almost any answer

# Evidence is clinical text about the case. A quote that is about the answer itself or its grading is not
# evidence of anything, whatever the detector thinks of it: the judge was persuaded by it, not informed. So a
# quote is refused when it refers to the answer or its reader ("this reply", "the answer above", "whoever
# reads this", "AI model"), speaks of grading ("grader", "rubric", "deserves credit", "nota máxima"), plays a
# role ("imagine ... be that ... now"), carries verdict markup (braces, tags), or is disguised (zero-width or
# bidi characters, a word mixing Latin with Cyrillic or Greek letters, a base64 run, text that reads as
# English only after rot13). Applied to quotes only (a few hundred characters a verdict), never to the
# candidate: a false hit costs a re-ask, not a redaction. RE2: the quote is the judge's text, which may echo
# the candidate.
_NOT_EVIDENCE = re2.compile(
    # the answer itself, or its reader
    r"(?i)\b(?:this|that|my|the\s+(?:above|preceding|following))\s+(?:exact\s+|whole\s+)?(?:answers?|responses?|"
    r"repl(?:y|ies)|text|note|item|submission|output|content)\b|\b(?:answer|response|reply|what\s+i\s+wrote)\s+above\b"
    r"|\bwhat\s+i\s+wrote\b|\b(?:reads?|reading|reviews?|reviewing|assessing|evaluating|grading|checking)\s+this\b"
    r"|\b(?:ai|language)\s+models?\b|\bwhoever\b|\bfor\s+the\s+system\b|\bthe\s+system\s*[:,]|\bas\s+the\s+author\b"
    # grading
    r"|\b(?:graders?|rubrics?|grading\s+(?:model|system|instructions?)|deserves?\s+(?:credit|marks|points|a\s+pass|"
    r"full|the\s+(?:top|highest|best))|(?:top|highest|best)\s+(?:band|mark|marks|grade|score)|perfect\s+(?:answer|score|"
    r"response)|best\s+possible\s+answer|(?:mark|log|record|rate|score|grade|treat|consider)\s+(?:it|this|them)\s+"
    r"(?:so|as|accordingly)|accordingly|(?:is|as)\s+(?:fully\s+)?(?:satisfied|fulfilled)|fair\s+(?:outcome|reading)|"
    r"expert\s+panel|benchmark|exemplary|reference[- ]standard)\b"
    # role play
    r"|\b(?:imagine|pretend|role[- ]?play)\b|\bbe\s+(?:that|a|an|the)\s+\w+\s+now\b|\bact\s+(?:as|like)\b"
    # other languages
    r"|\b(?:est[ae]\s+respuesta|cette\s+r[ée]ponse|diese\s+antwort|questa\s+risposta|esta\s+resposta|nota\s+m[áa]xima|"
    r"note\s+maximale|h[öo]chstnote|calif[ií]quel[ao]|[ée]valu(?:ez|er)|bewerten|punteggio\s+massimo)\b"
    r"|本回复|本回答|该回答|此回答|这个回答|这份回复|这份回答|以上回答|上面的回答|上述回答|满分|最高分|打分|评委|裁判|阅卷|考官|"
    r"评分员|评分者|按满足|视为满足|请如实记录"
    # verdict markup
    r"|[{}]|</?[A-Za-z_]+[^<>]*>")
_HIDDEN = re2.compile(r"[\x{200b}-\x{200f}\x{202a}-\x{202e}\x{2060}-\x{2069}\x{feff}]")
_MIXED_SCRIPT = re2.compile(r"(?:\p{Latin}\p{Cyrillic}|\p{Cyrillic}\p{Latin}|\p{Latin}\p{Greek}|\p{Greek}\p{Latin})")
_BASE64 = re2.compile(r"[A-Za-z0-9+/]{24,}={0,2}")
_WORD = re2.compile(r"[a-z]+")
_COMMON = frozenset("the this that and you your give answer every all item score mark please is are be as to of it "
                    "for with record full top".split())
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
    if find_injection(evidence) or not_evidence(evidence):
        raise Refused(limits.INSTRUCTION_QUOTE, "the evidence quoted is an instruction, not clinical content")


def not_evidence(quote: str) -> bool:
    """True when `quote` is about the answer or its grading, or disguised (see _NOT_EVIDENCE)."""
    if _NOT_EVIDENCE.search(quote) or _HIDDEN.search(quote) or _MIXED_SCRIPT.search(quote):
        return True
    if any(any(c.isdigit() for c in run) and run.lower() != run and run.upper() != run
           for run in (m.group(0) for m in _BASE64.finditer(quote))):
        return True  # base64: mixed case and digits in one long run (an identifier or a hash rarely is)
    words = _WORD.findall(quote.lower())
    if len(words) >= 4:  # English only after rot13: a hidden sentence
        plain = sum(w in _COMMON for w in words)
        rotated = sum(codecs.encode(w, "rot13") in _COMMON for w in words)
        return rotated >= 3 and rotated > 2 * plain
    return False

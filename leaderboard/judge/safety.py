"""Candidate text goes to a judge as quoted data. Text that addresses the judge (prompt injection) is
flagged and redacted before the call, so it can never raise its own score."""
from __future__ import annotations

import re
from functools import lru_cache

OPEN, CLOSE = "<candidate_response>", "</candidate_response>"
REDACTED = "[removed: text addressed to the grader]"

# Phrases that instruct a grader rather than answer a clinical question.
_INJECTION = re.compile(
    r"(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+|the\s+)?(?:previous|prior|above|earlier|your|system)?\s*"
    r"(?:instructions?|prompts?|rules?|rubrics?|criteria)"
    r"|(?:you\s+are|act\s+as)\s+(?:now\s+)?(?:a|an|the)?\s*(?:grader|judge|evaluator|scorer)\b"
    r"|(?:as|to)\s+the\s+(?:grader|judge|evaluator|scorer)\b"
    r"|\b(?:give|assign|award|output|return|rate)\s+(?:this|me|it|the\s+(?:answer|response))?\s*(?:a\s+)?"
    r"(?:full|maximum|max|perfect|highest|top)\s+(?:score|marks?|points?|rating)"
    r"|\b(?:score|grade|rate)\s+(?:this|it|me)\s+(?:as\s+)?(?:10|100|2|correct|perfect|met)\b"
    r"|\bsystem\s*(?:prompt|message|override)\s*:"
    r"|</?\s*(?:system|candidate_response|instructions?)\s*>"
    r"|\{\s*\"?(?:score|verdict|met|rating)\"?\s*:"
    # the same in Chinese (some benchmarks' replies are Chinese)
    r"|(?:忽略|无视|忘记|忽视)(?:之前|以上|上面|所有|全部|前面)?的?(?:所有)?(?:指令|指示|说明|规则|提示|评分标准)"
    r"|你(?:现在)?(?:是|作为)(?:一名|一个)?(?:评分员|评分者|评委|裁判|评审)"
    r"|(?:给|打)(?:这个|此|该)?(?:回答|回复|答案)?(?:打)?(?:满分|最高分)"
    r"|(?:判定|评为|视为)(?:所有|全部)?(?:标准|条目)?(?:都|均)?(?:已满足|满足|通过)",
    re.IGNORECASE,
)
_SENTENCE = re.compile(r"[^.!?。！？\n]*(?:[.!?。！？]+|\n|$)")


def find_injection(text: str) -> list[str]:
    return [m.group(0) for m in _INJECTION.finditer(text or "")]


def redact(text: str) -> tuple[str, bool]:
    """(text with every sentence that addresses the grader replaced, whether anything was flagged)."""
    if _INJECTION.search(text or "") is None:  # the common case, checked once
        return text, False
    parts = []
    for sentence in _SENTENCE.findall(text):
        parts.append(REDACTED + (" " if sentence.endswith(("\n",)) else "") if _INJECTION.search(sentence) else sentence)
    return "".join(parts), True


@lru_cache(maxsize=1024)  # one response is quoted once per rubric criterion: scan it once
def quote_candidate(text: str) -> tuple[str, bool]:
    """The candidate wrapped as data, after redaction; the tags cannot be closed from inside."""
    clean, flagged = redact(text or "")
    clean = clean.replace(CLOSE, "").replace(OPEN, "")
    return f"{OPEN}\n{clean}\n{CLOSE}", flagged

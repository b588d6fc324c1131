"""ClinMM-Bench's judge calls and their strict parsers (paper Supplementary H and I).

- Diagnosis (H): each judge sees only the predicted and the ground-truth diagnosis and answers XML
  `<result><reasoning>...</reasoning><accuracy>0|1|2</accuracy></result>`.
- Fact extraction (I1): reasoning text -> `{"facts": [...]}` (model reasoning at scoring time;
  reference reasoning once, frozen in the dataset).
- Fact matching (I2): numbered P-list and G-list -> matched pairs, hallucinated and non-hallucinated
  unmatched predicted ids, unmatched ground-truth ids; every rule of the prompt is checked.

A parser raises JudgeParseError on anything off-format, so the client re-asks once and then reports a
failure; a failure is never turned into a score.
"""
from __future__ import annotations

from pathlib import Path

import html
import xml.etree.ElementTree as ET
from concurrent.futures import ThreadPoolExecutor
from typing import Callable

import re2

from leaderboard.scoring.judge import (Judge, JudgeCall, JudgeParseError, JudgeVerdict, item_key_id, load_prompt, parse_json_object)

PROMPTS = Path(__file__).resolve().parent / "prompts"  # this benchmark's versioned judge prompts

DIAGNOSIS_PROMPT = "clinmm_diagnosis"
EXTRACTION_PROMPT = "clinmm_fact_extraction"
MATCHING_PROMPT = "clinmm_fact_matching"

_DECLARATION = re2.compile(r"^\s*<\?xml[^>]*\?>")
GROUNDING_TAGS = ("canary", "criterion_id", "evidence")  # checked by the judge client, not scored


# The judge's reply can echo the candidate's text, so these parsers stay linear: `<tag\s*>(.*?)</tag\s*>` and
# `\s*```\s*$` as regexes rescan to the end of the text from every unclosed tag / whitespace run.
def _elements(text: str, tag: str) -> list[tuple[int, int, int, int]]:
    r"""(start, inner start, inner end, end) of each `<tag\s*>...</tag\s*>`, non-overlapping, the nearest
    closing tag each: what `re.finditer(r"<tag\s*>(.*?)</tag\s*>", text, re.S)` finds."""
    opens = [(m.start(), m.end()) for m in re2.finditer(rf"<{tag}\s*>", text)]
    closes = [(m.start(), m.end()) for m in re2.finditer(rf"</{tag}\s*>", text)]
    found, j, pos = [], 0, 0
    for start, inner in opens:
        if start < pos:
            continue
        while j < len(closes) and closes[j][0] < inner:
            j += 1
        if j == len(closes):
            break
        found.append((start, inner, closes[j][0], closes[j][1]))
        pos = closes[j][1]
        j += 1
    return found


def _unfenced(text: str) -> str:
    r"""`re.sub(r"^\s*```(?:xml)?\s*|\s*```\s*$", "", text)` followed by strip(), without backtracking."""
    text = text.strip()
    if text.startswith("```"):
        text = text[3:]
        text = (text[3:] if text.startswith("xml") else text).lstrip()
    if text.endswith("```"):
        text = text[:-3].rstrip()
    return text


# ----------------------------------------------------------------------------- diagnosis (XML)
def parse_accuracy_xml(raw: str) -> dict:
    """{"accuracy": 0|1|2, "reasoning": str, "canary", "criterion_id", "evidence"} from the judge's XML;
    JudgeParseError otherwise.

    Strict: exactly one <result> element and no other text (a code fence or an XML declaration around
    it is tolerated); inside it exactly one <reasoning> and one <accuracy>, at most one of each grounding
    element (<canary>, <criterion_id>, <evidence>: the client checks them), nothing else; accuracy 0, 1 or 2.
    Unescaped `<`/`&` inside the reasoning or the evidence (e.g. "CRP < 5") are escaped before parsing."""
    text = _DECLARATION.sub("", _unfenced(raw or "")).strip()
    blocks = _elements(text, "result")
    if len(blocks) != 1:
        raise JudgeParseError(f"expected exactly one <result>...</result> element, found {len(blocks)}")
    start, inner, inner_end, end = blocks[0]
    if (text[:start] + text[end:]).strip():
        raise JudgeParseError("text outside the <result> element; output only the XML")
    root = _xml_element(f"<result>{text[inner:inner_end]}</result>")
    if (root.text or "").strip():
        raise JudgeParseError("text directly inside <result>; only <reasoning> and <accuracy> are allowed")
    tags = [child.tag for child in root]
    core = sorted(t for t in tags if t not in GROUNDING_TAGS)
    if core != ["accuracy", "reasoning"] or len(tags) != len(set(tags)):
        raise JudgeParseError(f"<result> must hold one <reasoning> and one <accuracy> (and the grounding elements), "
                              f"found {tags}")
    if any((child.tail or "").strip() for child in root):
        raise JudgeParseError("text between the elements of <result>")
    accuracy = (root.find("accuracy").text or "").strip()
    if accuracy not in ("0", "1", "2"):
        raise JudgeParseError(f"<accuracy> must be 0, 1 or 2, got {accuracy[:20]!r}")
    value = {"accuracy": int(accuracy), "reasoning": "".join(root.find("reasoning").itertext()).strip()}
    for tag in GROUNDING_TAGS:
        found = root.find(tag)
        value[tag] = "".join(found.itertext()).strip() if found is not None else ""
    return value


def _xml_element(text: str) -> ET.Element:
    try:
        return ET.fromstring(text)
    except ET.ParseError:
        pass
    spans = sorted(span for tag in ("reasoning", "evidence") for span in _elements(text, tag))
    parts, kept_from = [], 0
    for _, inner, inner_end, _ in spans:
        if inner < kept_from:
            continue
        parts += [text[kept_from:inner], html.escape(html.unescape(text[inner:inner_end]), quote=False)]
        kept_from = inner_end
    escaped = "".join(parts) + text[kept_from:]
    try:
        return ET.fromstring(escaped)
    except ET.ParseError as exc:
        raise JudgeParseError(f"not well-formed XML ({exc})") from None


# ----------------------------------------------------------------------------- fact extraction (JSON)
_ECHO = {"canary": {"type": "string"}, "criterion_id": {"type": "string"}}  # checked by the client
FACTS_SCHEMA = {"type": "object", "properties": {**_ECHO, "facts": {"type": "array", "items": {"type": "string"}}},
                "required": ["canary", "criterion_id", "facts"], "additionalProperties": False}


def parse_facts(raw: str) -> dict:
    """{"facts": [non-empty strings]}; JudgeParseError when the list is missing or holds non-strings."""
    value = parse_json_object(raw)
    facts = value.get("facts")
    if not isinstance(facts, list):
        raise JudgeParseError('"facts" must be a list of strings')
    if any(not isinstance(fact, str) for fact in facts):
        raise JudgeParseError('every item of "facts" must be a string')
    return {"facts": [fact.strip() for fact in facts if fact.strip()]}


# ----------------------------------------------------------------------------- fact matching (JSON)
MATCHING_SCHEMA = {
    "type": "object",
    "properties": {
        **_ECHO,
        "matched_pairs": {"type": "array", "items": {
            "type": "object",
            "properties": {"reasoning": {"type": "string"},
                           "predicted_ids": {"type": "array", "items": {"type": "integer"}},
                           "ground_truth_ids": {"type": "array", "items": {"type": "integer"}}},
            "required": ["reasoning", "predicted_ids", "ground_truth_ids"], "additionalProperties": False}},
        "hallucinated_predicted_ids": {"type": "array", "items": {"type": "integer"}},
        "non_hallucinated_unmatched_predicted_ids": {"type": "array", "items": {"type": "integer"}},
        "unmatched_ground_truth_ids": {"type": "array", "items": {"type": "integer"}},
    },
    "required": ["canary", "criterion_id", "matched_pairs", "hallucinated_predicted_ids",
                 "non_hallucinated_unmatched_predicted_ids", "unmatched_ground_truth_ids"],
    "additionalProperties": False,
}


def numbered(facts: list[str]) -> str:
    return "\n".join(f"{k}. {fact}" for k, fact in enumerate(facts, start=1))


def _ids(value, field: str, prefix: str, n: int) -> set[int]:
    """A list of 1-based ids (ints, digit strings or 'P3'/'G3'), each within 1..n."""
    if not isinstance(value, list):
        raise JudgeParseError(f'"{field}" must be a list of ids')
    out = set()
    for item in value:
        if isinstance(item, bool):
            raise JudgeParseError(f'"{field}" holds a boolean, not an id')
        if isinstance(item, str):
            text = item.strip().upper().removeprefix(prefix)
            if not text.isdigit():
                raise JudgeParseError(f'"{field}" holds {item[:20]!r}, not an id of the {prefix}-list')
            item = int(text)
        if not isinstance(item, int) or not 1 <= item <= n:
            raise JudgeParseError(f'"{field}" holds {item!r}; ids of the {prefix}-list run from 1 to {n}')
        out.add(item)
    return out


def matching_parser(n_predicted: int, n_reference: int) -> Callable[[str], dict]:
    """A parser that enforces every output rule of the matching prompt for these list sizes."""
    def parse(raw: str) -> dict:
        value = parse_json_object(raw)
        pairs = value.get("matched_pairs")
        if not isinstance(pairs, list):
            raise JudgeParseError('"matched_pairs" must be a list')
        matched_p, matched_g, clean_pairs = set(), set(), []
        for k, pair in enumerate(pairs):
            if not isinstance(pair, dict):
                raise JudgeParseError(f"matched_pairs[{k}] must be an object")
            p = _ids(pair.get("predicted_ids"), f"matched_pairs[{k}].predicted_ids", "P", n_predicted)
            g = _ids(pair.get("ground_truth_ids"), f"matched_pairs[{k}].ground_truth_ids", "G", n_reference)
            if not p or not g:
                raise JudgeParseError(f"matched_pairs[{k}] needs at least one predicted and one ground-truth id")
            matched_p |= p
            matched_g |= g
            clean_pairs.append({"predicted_ids": sorted(p), "ground_truth_ids": sorted(g),
                                "reasoning": str(pair.get("reasoning", ""))[:500]})
        hallucinated = _ids(value.get("hallucinated_predicted_ids"), "hallucinated_predicted_ids", "P", n_predicted)
        benign = _ids(value.get("non_hallucinated_unmatched_predicted_ids"),
                      "non_hallucinated_unmatched_predicted_ids", "P", n_predicted)
        unmatched_g = _ids(value.get("unmatched_ground_truth_ids"), "unmatched_ground_truth_ids", "G", n_reference)
        if matched_p & (hallucinated | benign):
            raise JudgeParseError(f"predicted id(s) {sorted(matched_p & (hallucinated | benign))} are both matched "
                                  "and listed as unmatched")
        if hallucinated & benign:
            raise JudgeParseError(f"predicted id(s) {sorted(hallucinated & benign)} are in both unmatched lists")
        missing = set(range(1, n_predicted + 1)) - matched_p - hallucinated - benign
        if missing:
            raise JudgeParseError(f"unmatched predicted id(s) {sorted(missing)} are in neither unmatched list")
        if unmatched_g != set(range(1, n_reference + 1)) - matched_g:
            raise JudgeParseError("unmatched_ground_truth_ids must list exactly the ground-truth ids in no matched pair")
        return {"matched_pairs": clean_pairs, "matched_predicted": len(matched_p), "matched_reference": len(matched_g),
                "hallucinated": len(hallucinated), "n_predicted": n_predicted, "n_reference": n_reference}
    return parse


# ----------------------------------------------------------------------------- calls and running
# Every call echoes an id of what it judges (the case key's) and carries the request's canary; a diagnosis
# verdict above 0 quotes the words of the predicted diagnosis it rests on. Atomic facts and matched ids are
# not quotes (facts are paraphrases, matches are ids), so those two echo the id and the canary only.
def diagnosis_call(key: str, predicted: str, ground_truth: str) -> JudgeCall:
    return JudgeCall(key, load_prompt(DIAGNOSIS_PROMPT, folder=PROMPTS), {"candidate": predicted, "ground_truth": ground_truth},
                     criterion_id=item_key_id(key), evidence=_credited)


def _credited(value: dict) -> bool:
    return value["accuracy"] > 0


def extraction_call(key: str, reasoning: str) -> JudgeCall:
    return JudgeCall(key, load_prompt(EXTRACTION_PROMPT, folder=PROMPTS), {"candidate": reasoning},
                     criterion_id=item_key_id(key))


def matching_call(key: str, predicted: list[str], reference: list[str]) -> JudgeCall:
    return JudgeCall(key, load_prompt(MATCHING_PROMPT, folder=PROMPTS),
                     {"candidate": numbered(predicted), "ground_truth_facts": numbered(reference)},
                     criterion_id=item_key_id(key))


def xml_judge(judge: Judge) -> tuple[Judge, bool]:
    """The judge to ask for XML: itself when it sends no response_format, else a sibling in "text" mode
    (a JSON response_format would forbid the paper's XML) spending the same budget. True when a sibling
    was made (close it)."""
    if judge.config.response_format == "text":
        return judge, False
    return judge.sibling(response_format="text"), True


def run_each(judge: Judge, jobs: list[tuple[JudgeCall, Callable[[str], dict]]], schema: dict | None = None,
             ) -> list[JudgeVerdict]:
    """Like `Judge.run`, but each call brings its own parser (matching checks ids against its list sizes)."""
    if not jobs:
        return []
    with ThreadPoolExecutor(max_workers=max(1, judge.config.concurrency)) as pool:
        futures = [pool.submit(judge.judge_one, call, parse, schema) for call, parse in jobs]
        return [future.result() for future in futures]

"""X-PCR inference: progressive chains that carry the model's own answers, plus the hospital
cross-modal items and their modality-ablation runs.

- Chains (`chains` config): one conversation per image. The image is shown once, in the first user
  turn; the items follow in stage order IQA, AL, LC, DD, SG, CD (release order within a stage), one
  user turn each, and every reply stays in the conversation, so later stages see the model's own
  earlier answers (errors propagate; the paper's F1 templates carry the model's answers, its text says
  "validated outputs": this project carries the model's). No IQA gating: every item is asked.
- Cross-modal (`cross_modal` config): one independent request per item with the vignette and every
  image, labelled by modality. Ablations (`ablations` config ids `<item id>/without-<MODALITY>`): the
  same request without that modality's images.
- Every question asks for `Answer: <letter>` and `Confidence: <0..1>`. Lines carry `response` (the
  letter is parsed by the scorer's rule, one rule for everyone) and `confidence` when one was given
  (a percentage is divided by 100; a missing one is left out, the scorer reports coverage).
- Decoding per the paper: temperature 0, top_p 1, max_tokens 256 (16384 for cross-modal items).
"""
from __future__ import annotations

import re
from typing import Iterator

from benchmarks.xpcr.taxonomy import ABLATION_SEP, STAGE_NAMES, STAGES

from leaderboard.harness.predict.base import (Conversation, DataSource, PredictError, Protocol, Task, image_part, letter_options, prompt_sha, text_part)

CHAINS, CROSS, ABLATIONS = "chains", "cross_modal", "ablations"
CHAIN_COLUMNS = ["id", "image", "modality", "items"]
CHAIN_LIGHT = ["id", "items"]
CROSS_COLUMNS = ["id", "vignette", "images", "image_modalities", "image_labels", "items"]
CROSS_LIGHT = ["id", "items"]
ABLATION_COLUMNS = ["id", "item_id", "parent_id", "removed_modality"]
CHAIN_MAX_TOKENS = 256
CROSS_MAX_TOKENS = 16384

FORMAT = ("Reply in exactly this format:\nAnswer: <the letter of one option>\n"
          "Confidence: <a number between 0 and 1, your probability that this answer is correct>")
CHAIN_SYSTEM = (
    "You are an expert ophthalmologist. You will see one ophthalmic image and answer a sequence of multiple-choice "
    "questions about it, one at a time, progressing from image quality through anatomical localization, lesion "
    "characterization, disease diagnosis and severity grading to the clinical decision. Your earlier answers stay "
    "in the conversation; build on them. " + FORMAT
)
CHAIN_IMAGE = "Imaging modality: {modality}. Here is the image."
QUESTION = "Stage {n} of 6, {stage_name}. Question {k} of {total}:\n{question}\n\nOptions:\n{options}\n\n" + FORMAT
CROSS_SYSTEM = (
    "You are an expert ophthalmologist. You will see a patient's clinical vignette and images from several "
    "imaging modalities, and answer one multiple-choice question. " + FORMAT
)
CROSS_QUESTION = "Question:\n{question}\n\nOptions:\n{options}\n\n" + FORMAT

# Whitespace runs are collapsed to one space first: the pattern's five `\s*` in a row backtracked
# polynomially on "confidence" followed by 10^5 spaces.
_CONFIDENCE = re.compile(r"confidence ?(?:(?:level|score) ?)?(?:(?:is|:|=|-) ?)?\(? ?(\d+(?:\.\d+)?|\.\d+) ?(%?)", re.I)


def parse_confidence(text: str) -> float | None:
    """The stated confidence in [0, 1]; '85%' or '85' -> 0.85; None when absent or out of range."""
    plain = re.sub(r"\s+", " ", re.sub(r"[*_`]+", "", text or ""))  # markdown: **Confidence:** 0.8
    match = _CONFIDENCE.search(plain)
    if not match:
        return None
    value = float(match.group(1))
    if match.group(2) or 1 < value <= 100:
        value /= 100
    return value if 0 <= value <= 1 else None


def chain_order(items: list[dict]) -> list[dict]:
    """Items in stage order, release order within a stage; an item of unknown stage goes last."""
    rank = {stage: i for i, stage in enumerate(STAGES)}
    return sorted(items, key=lambda item: rank.get(item.get("stage"), len(STAGES)))  # sorted() is stable


def prediction(item_id: str, reply: str, **extra) -> dict:
    row = {"id": item_id, "response": reply, **extra}
    confidence = parse_confidence(reply)
    if confidence is not None:
        row["confidence"] = confidence
    return row


def run_chain(chat, row: dict) -> list[dict]:
    items = chain_order(row["items"] or [])
    conversation = Conversation(chat, CHAIN_SYSTEM)
    rows = []
    for k, item in enumerate(items, start=1):
        question = QUESTION.format(n=STAGES.index(item["stage"]) + 1 if item["stage"] in STAGES else "?",
                                   stage_name=STAGE_NAMES.get(item["stage"], item["stage"] or "unknown stage"),
                                   k=k, total=len(items), question=item["question"],
                                   options=letter_options(item["options"] or []))
        if k == 1:
            content = [text_part(CHAIN_IMAGE.format(modality=row["modality"] or "unknown")),
                       image_part(row["image"]), text_part(question)]
        else:
            content = question
        reply = conversation.ask(content, max_tokens=CHAIN_MAX_TOKENS)
        rows.append(prediction(item["item_id"], reply))
    return rows


def cross_messages(case: dict, item: dict, removed: str | None = None) -> list[dict]:
    content = [text_part(f"Clinical vignette: {case['vignette'] or 'not available'}")]
    labels = case["image_labels"] or []
    modalities = case["image_modalities"] or []
    shown = 0
    for k, image in enumerate(case["images"] or []):
        modality = modalities[k] if k < len(modalities) else None
        if removed is not None and modality == removed:
            continue
        shown += 1
        label = (labels[k] if k < len(labels) else None) or modality or "image"
        content += [text_part(f"Image {shown} ({label}):"), image_part(image)]
    content.append(text_part(CROSS_QUESTION.format(question=item["question"],
                                                   options=letter_options(item["options"] or []))))
    return [{"role": "system", "content": CROSS_SYSTEM}, {"role": "user", "content": content}]


class XPCRProtocol(Protocol):
    name = "xpcr"
    temperature = 0.0
    request_defaults = {"top_p": 1.0}
    description = ("chains: one conversation per image, stages in order, the model's own answers carried; "
                   "cross-modal and ablated items: one request each; answer letter + confidence")

    def add_arguments(self, parser) -> None:
        parser.add_argument("--no-ablations", action="store_true",
                            help="X-PCR: skip the modality-ablation runs of the cross-modal items")

    def tasks(self, data: DataSource, options) -> Iterator[Task]:
        if data.has(CHAINS):
            image_ids = data.column(CHAINS, CHAIN_LIGHT, "id")
            for index, items in enumerate(data.column(CHAINS, CHAIN_LIGHT, "items")):
                ids = [i["item_id"] for i in chain_order(items or [])]
                yield Task(image_ids[index], ids, self._chain(data, index))
        if not data.has(CROSS):
            return
        case_ids = data.column(CROSS, CROSS_LIGHT, "id")
        position = {}
        for index, items in enumerate(data.column(CROSS, CROSS_LIGHT, "items")):
            for k, item in enumerate(items or []):
                position[item["item_id"]] = (index, k)
                yield Task(item["item_id"], [item["item_id"]], self._cross(data, index, k, None, item["item_id"]))
        if getattr(options, "no_ablations", False) or not data.has(ABLATIONS):
            return
        table = data.table(ABLATIONS, ABLATION_COLUMNS)[:].to_pylist()
        for ablation in table:
            where = position.get(ablation["item_id"])
            if where is None:
                raise PredictError(f"ablation {ablation['id']!r} names an item not in {CROSS} (of {len(case_ids)} cases)")
            yield Task(ablation["id"], [ablation["id"]],
                       self._cross(data, *where, ablation["removed_modality"], ablation["id"]))

    @staticmethod
    def _chain(data: DataSource, index: int):
        return lambda chat: run_chain(chat, data.row(CHAINS, CHAIN_COLUMNS, index))

    @staticmethod
    def _cross(data: DataSource, index: int, k: int, removed: str | None, out_id: str):
        def run(chat) -> list[dict]:
            case = data.row(CROSS, CROSS_COLUMNS, index)
            reply = chat(cross_messages(case, case["items"][k], removed), max_tokens=CROSS_MAX_TOKENS)
            extra = {"removed_modality": removed} if removed else {}
            return [prediction(out_id, reply, **extra)]
        return run

    def settings(self, options) -> dict:
        return {
            "prompt_sha": prompt_sha(CHAIN_SYSTEM, CHAIN_IMAGE, QUESTION, CROSS_SYSTEM, CROSS_QUESTION),
            "chain_history": "model's own earlier answers carried in the conversation",
            "iqa_gating": False,
            "max_tokens": {"chain": CHAIN_MAX_TOKENS, "cross_modal": CROSS_MAX_TOKENS},
            "ablations": not getattr(options, "no_ablations", False),
            "confidence": "self-reported, raw (no calibrator); percentages divided by 100",
            "ablation_id_form": f"<item id>{ABLATION_SEP}<MODALITY>",
        }

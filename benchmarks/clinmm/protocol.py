"""ClinMM-Bench inference: the dataset's turns replayed as one conversation per case.

The builder already fixes the turn texts (this project's decision, `clinmm_meta`): the case
presentation, then one turn per image carrying the image and its `image_type` only (never its
finding or diagnostic significance), then the final request for `Final diagnosis:` and `Reasoning:`.
Every turn is a user message (text, then that turn's images, original bytes); every reply is kept,
so each turn sees all earlier text, images and the model's own answers ("cross-turn memory").
English turns by default (`--language zh` replays `turn_texts_zh` where the case has it).
Temperature 0 (unreported in the paper). The final reply is split into `diagnosis` and `reasoning`;
all replies go to `turn_responses` (accepted, not scored).
"""
from __future__ import annotations

import re
from typing import Iterator

from leaderboard.harness.predict.base import Conversation, DataSource, Protocol, Task, image_part, text_part

CONFIG = "default"
INPUT_COLUMNS = ["case_id", "turns", "turn_texts_zh"]
_MARKUP = re.compile(r"[*_`#]+")
_FINAL = re.compile(r"(?:final\s+diagnosis|最终诊断)\s*[:：]\s*", re.I)
_PLAIN = re.compile(r"^\s*(?:diagnosis|诊断)\s*[:：]\s*", re.I | re.M)
_REASONING = re.compile(r"(?:diagnostic\s+reasoning|reasoning|推理过程|诊断推理|推理)\s*[:：]\s*", re.I)


def split_final(reply: str) -> tuple[str, str, bool]:
    """(diagnosis, reasoning, parsed). The diagnosis is the text after `Final diagnosis:` (else a line
    starting `Diagnosis:`) up to the end of its line or a `Reasoning:` label; the reasoning is the text
    after `Reasoning:`, else everything but the diagnosis. No label: diagnosis '' (scored as a complete
    error, the format was required) and the whole reply as reasoning."""
    text = _MARKUP.sub("", reply or "").strip()
    label = _FINAL.search(text) or _PLAIN.search(text)
    if label is None:
        return "", text, False
    rest = text[label.end():]
    reasoning_label = _REASONING.search(rest)
    line_end = rest.find("\n")
    cut = min(line_end if line_end >= 0 else len(rest), reasoning_label.start() if reasoning_label else len(rest))
    diagnosis = rest[:cut].strip().rstrip(".。;；")
    if reasoning_label is not None:
        reasoning = rest[reasoning_label.end():].strip()
    else:
        reasoning = "\n".join(p for p in (text[:label.start()].strip(), rest[cut:].strip()) if p)
    return diagnosis, reasoning, True


def turn_contents(row: dict, language: str) -> list[list[dict]]:
    """User content of every turn: its text (Chinese when asked and present), then its images."""
    zh = row.get("turn_texts_zh") or []
    contents = []
    for k, turn in enumerate(row["turns"] or []):
        text = zh[k] if language == "zh" and k < len(zh) and zh[k] else turn["text"]
        contents.append([text_part(text or "")] + [image_part(image) for image in turn["images"] or []])
    return contents


def run_case(chat, case_id: str, row: dict, language: str) -> dict:
    conversation = Conversation(chat)
    replies = [conversation.ask(content) for content in turn_contents(row, language)]
    if not replies:
        raise ValueError(f"case {case_id!r} has no turns")
    diagnosis, reasoning, _ = split_final(replies[-1])
    return {"id": case_id, "diagnosis": diagnosis, "reasoning": reasoning, "turn_responses": replies}


class ClinMMProtocol(Protocol):
    name = "clinmm"
    temperature = 0.0
    description = ("the dataset's turns in one conversation (presentation, one image per turn with its type, final "
                   "request), history and images kept; final reply split into diagnosis and reasoning")

    def add_arguments(self, parser) -> None:
        parser.add_argument("--language", choices=("en", "zh"), default="en",
                            help="ClinMM: replay the English turns (default) or the Chinese ones where present")

    def tasks(self, data: DataSource, options) -> Iterator[Task]:
        language = getattr(options, "language", "en")
        for index, case_id in enumerate(data.column(CONFIG, ["case_id"], "case_id")):
            yield Task(case_id, [case_id], self._runner(data, index, case_id, language))

    @staticmethod
    def _runner(data: DataSource, index: int, case_id: str, language: str):
        return lambda chat: [run_case(chat, case_id, data.row(CONFIG, INPUT_COLUMNS, index), language)]

    def settings(self, options) -> dict:
        return {"language": getattr(options, "language", "en"),
                "turns": "dataset `turns` (texts fixed by the builder, clinmm_meta)",
                "history": "full conversation with all earlier images and replies",
                "final_parse": "'Final diagnosis:' / 'Reasoning:' labels; no label -> empty diagnosis"}

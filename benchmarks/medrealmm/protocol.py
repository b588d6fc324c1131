"""MedRealMM inference: the consultation up to the challenge point, and the physician's next reply.

The paper calls an instance "self-contained single-turn" and applies no persona, chain-of-thought or
model-specific prompt; its chat formatting is a paper gap. This project sends ONE user message
(Chinese): the patient metadata, the dialogue in order as `[t] 患者/医生：text [图片k]` with each image
(original bytes) right after the turn that uploaded it, then one line asking for the physician's next
reply. One message rather than native roles because physicians upload images too (assistant
messages cannot carry images) and the context may end on either speaker. Decoding is left to the
server's defaults (the paper used each vendor's recommended configuration): no temperature is sent
unless --temperature is given. `--text-only` drops the image parts and keeps the `[图片k]` markers
(the dialogue still says an image was sent; the model cannot see it), and every line records
`input_modality` (`multimodal` / `text-only`). Rubrics and the original reply are never read.
"""
from __future__ import annotations

import json
from typing import Iterator

from benchmarks.medrealmm.taxonomy import ROLE_ZH

from leaderboard.harness.predict.base import DataSource, Protocol, Task, image_part, prompt_sha, text_part

CONFIG = "default"
INPUT_COLUMNS = ["id", "patient_metadata", "dialogue"]
HEADER = "以下是一次在线问诊的对话记录（截至目前）。"
METADATA = "患者信息：{metadata}"
INSTRUCTION = "请作为接诊医生，直接写出医生的下一条回复。"
MULTIMODAL, TEXT_ONLY = "multimodal", "text-only"


def metadata_text(raw: str | None) -> str | None:
    """`{"年龄": "28岁", ...}` -> `年龄：28岁；...`; other text as is; None when absent."""
    if not raw or not raw.strip():
        return None
    try:
        value = json.loads(raw)
    except ValueError:
        return raw.strip()
    if isinstance(value, dict):
        return "；".join(f"{k}：{v}" for k, v in value.items() if v not in (None, ""))
    return raw.strip()


def build_messages(row: dict, text_only: bool) -> list[dict]:
    content = [text_part(HEADER)]
    metadata = metadata_text(row.get("patient_metadata"))
    if metadata:
        content.append(text_part(METADATA.format(metadata=metadata)))
    shown = 0
    for t, turn in enumerate(row["dialogue"] or [], start=1):
        images = turn.get("images") or []
        markers = "".join(f"[图片{shown + k}]" for k in range(1, len(images) + 1))
        role = ROLE_ZH.get(turn.get("role") or "", turn.get("role") or "未知")
        text = (turn.get("text") or "").strip()
        content.append(text_part(f"[{t}] {role}：{text}{' ' if text and markers else ''}{markers}"))
        if not text_only:
            content += [image_part(image) for image in images]
        shown += len(images)
    content.append(text_part(INSTRUCTION))
    return [{"role": "user", "content": content}]


class MedRealMMProtocol(Protocol):
    name = "medrealmm"
    temperature = None  # vendor/model defaults, as in the paper
    description = ("one user message: patient metadata + numbered dialogue with images in place + 'write the "
                   "physician's next reply'; server-default decoding; --text-only drops the images")

    def add_arguments(self, parser) -> None:
        parser.add_argument("--text-only", action="store_true",
                            help="MedRealMM: drop the images (keep their [图片k] markers) for the image-gain comparison")

    def tasks(self, data: DataSource, options) -> Iterator[Task]:
        text_only = bool(getattr(options, "text_only", False))
        for index, case_id in enumerate(data.column(CONFIG, ["id"], "id")):
            yield Task(case_id, [case_id], self._runner(data, index, case_id, text_only))

    @staticmethod
    def _runner(data: DataSource, index: int, case_id: str, text_only: bool):
        def run(chat) -> list[dict]:
            row = data.row(CONFIG, INPUT_COLUMNS, index)
            return [{"id": case_id, "response": chat(build_messages(row, text_only))}]
        return run

    def settings(self, options) -> dict:
        return {"prompt_sha": prompt_sha(HEADER, METADATA, INSTRUCTION), "input_modality": self._modality(options),
                "format": "single user message, dialogue flattened with images in place"}

    def row_fields(self, options) -> dict:
        return {"input_modality": self._modality(options)}

    @staticmethod
    def _modality(options) -> str:
        return TEXT_ONLY if getattr(options, "text_only", False) else MULTIMODAL

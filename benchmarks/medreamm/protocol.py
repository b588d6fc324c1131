"""MedReaMM inference: the authors' top-10 diagnosis prompt (main protocol, R + C + I).

Reconstructed from the authors' repository as the spec (section 3) records it: a system message
asking for the top 10 most likely diagnoses in order, each a single independent disease, output
under `### Output ###`; the user content is `[Chief Complaint and Medical History]` + the record,
then `Figure k: caption` followed by the image (original bytes, detail "high") for every figure, then
the output-format instruction. Greedy decoding (temperature 0). The verbatim prompt text is an image
in the paper (Fig. 14), so the wording here is the repository's as far as the spec quotes it.
Inputs never include detailed captions, the reasoning path or any diagnosis field.
"""
from __future__ import annotations

from itertools import zip_longest
from typing import Iterator

from leaderboard.harness.predict.base import DataSource, Protocol, Task, image_part, prompt_sha, text_part

CONFIG = "default"
ID = "case_id"
INPUT_COLUMNS = ["case_id", "medical_records", "images", "captions"]

SYSTEM = (
    "You are an experienced clinical diagnostician. Based on the patient's chief complaint, medical history and "
    "the figures with their captions, give the top 10 most likely diagnoses in order, with the most likely "
    "disease listed first. Each diagnosis must be a single, independent disease: if the patient has multiple "
    "diseases or complications, please list them separately. Do not combine several diseases in one item and do "
    "not describe diagnoses in free-text sentences. Output only under the heading '### Output ###'."
)
RECORD = "[Chief Complaint and Medical History]\n{record}"
FIGURE = "Figure {k}: {caption}"
FINAL = 'Please output your final answer in the following format:\n\n### Output ###\n["Diagnosis A", "Diagnosis B"]'


def build_messages(row: dict) -> list[dict]:
    content = [text_part(RECORD.format(record=row["medical_records"] or ""))]
    for k, (image, caption) in enumerate(zip_longest(row["images"] or [], row["captions"] or []), start=1):
        if image is None:
            continue  # a caption without an image is not shown
        content.append(text_part(FIGURE.format(k=k, caption=caption or "").rstrip()))
        content.append(image_part(image, detail="high"))
    content.append(text_part(FINAL))
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": content}]


class MedReaMMProtocol(Protocol):
    name = "medreamm"
    temperature = 0.0
    description = "authors' top-10 prompt: system + record + (Figure k: caption, image) + output format; greedy"

    def tasks(self, data: DataSource, options) -> Iterator[Task]:
        for index, case_id in enumerate(data.column(CONFIG, INPUT_COLUMNS, ID)):
            yield Task(case_id, [case_id], self._runner(data, index, case_id))

    @staticmethod
    def _runner(data: DataSource, index: int, case_id: str):
        def run(chat) -> list[dict]:
            row = data.row(CONFIG, INPUT_COLUMNS, index)
            return [{"id": case_id, "response": chat(build_messages(row))}]
        return run

    def settings(self, options) -> dict:
        return {"prompt_sha": prompt_sha(SYSTEM, RECORD, FIGURE, FINAL), "inputs": "R + C + I",
                "image_detail": "high", "variant": "main (no hint, no CoT)"}

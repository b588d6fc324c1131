"""Med-CMR inference: one independent request per item.

The paper's response prompts (its supplement Tables 9-10) are not in the available text, so these
are this project's: MCQ = image(s), question, options A-E, answer with the letter (`Answer: X`, the
first form the project's letter rule reads); open-ended = image(s) and question, reasoning first, then
a final answer (the judge grades coherence of the reasoning steps and the answer). Temperature 0
(unreported in the paper). `visual_description`, `answer` and all labels are never read.
"""
from __future__ import annotations

from typing import Iterator

from leaderboard.harness.predict.base import (DataSource, Protocol, Task, image_part, letter_options, prompt_sha, text_part)

MCQ, OPEN = "mcq", "open_ended"
INPUT_COLUMNS = {MCQ: ["id", "question", "images", "options"], OPEN: ["id", "question", "images"]}

MCQ_PROMPT = (
    "{question}\n\nOptions:\n{options}\n\n"
    "Answer with the letter of the single best option ({letters}), in the format 'Answer: X'."
)
OPEN_PROMPT = (
    "{question}\n\n"
    "First explain your reasoning step by step, based on the visual findings in the image and your clinical "
    "knowledge. Then give your answer on a last line starting with 'Final answer:'."
)


def _images(row: dict) -> list[dict]:
    return [image_part(image) for image in row["images"] or []]


def mcq_messages(row: dict) -> list[dict]:
    options = row["options"] or []
    letters = ", ".join(chr(65 + i) for i in range(len(options)))
    text = MCQ_PROMPT.format(question=row["question"], options=letter_options(options), letters=letters)
    return [{"role": "user", "content": [*_images(row), text_part(text)]}]


def open_messages(row: dict) -> list[dict]:
    return [{"role": "user", "content": [*_images(row), text_part(OPEN_PROMPT.format(question=row["question"]))]}]


BUILDERS = {MCQ: mcq_messages, OPEN: open_messages}


class MedCMRProtocol(Protocol):
    name = "medcmr"
    temperature = 0.0
    description = "one request per item; MCQ: images + question + lettered options, 'Answer: X'; open: reasoning then final answer"

    def tasks(self, data: DataSource, options) -> Iterator[Task]:
        for config in (MCQ, OPEN):
            if not data.has(config):  # a build may have only one format
                continue
            for index, item_id in enumerate(data.column(config, INPUT_COLUMNS[config], "id")):
                yield Task(item_id, [item_id], self._runner(data, config, index, item_id))

    @staticmethod
    def _runner(data: DataSource, config: str, index: int, item_id: str):
        def run(chat) -> list[dict]:
            row = data.row(config, INPUT_COLUMNS[config], index)
            return [{"id": item_id, "response": chat(BUILDERS[config](row))}]
        return run

    def settings(self, options) -> dict:
        return {"prompt_sha": prompt_sha(MCQ_PROMPT, OPEN_PROMPT),
                "note": "prompts are this project's (the paper's Tables 9-10 are unpublished)"}

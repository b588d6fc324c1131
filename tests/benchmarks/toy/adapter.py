"""Toy release: `items.jsonl`, one item per line: `id`, `question`, `answer` (a letter A-D), `topic`."""
from __future__ import annotations

from pathlib import Path

from datasets import Features, Value

from dataset_builders.adapter import CardFacts, ConfigSpec, JsonlCaseAdapter
from dataset_builders.errors import ProblemLog

FEATURES = Features({"id": Value("string"), "question": Value("string"), "answer": Value("string"),
                     "topic": Value("string")})


class ToyAdapter(JsonlCaseAdapter):
    name = "toy"
    id_column = "id"
    answer_columns = ("answer",)
    facts = CardFacts(
        pretty_name="Toy", summary="Four multiple-choice questions that exercise the pipeline.", license="cc0-1.0",
        license_note="Written for the test suite.", paper_title="(none)", paper_url="https://example.org",
        code_url="https://example.org", bibtex="@misc{toy}", provenance="Written for the test suite.",
        task_categories=("question-answering",))

    def configs(self) -> list[ConfigSpec]:
        return [ConfigSpec("default", "data", FEATURES, default=True, description="all items")]

    def strata(self, config: str, row: dict) -> dict:
        return {"topic": row["topic"]}

    def _parse_record(self, record: dict, file: str, line_no: int, root: Path, log: ProblemLog,
                      seen: dict[str, str]) -> dict | None:
        row = {k: record.get(k) for k in FEATURES}
        missing = [k for k, v in row.items() if not isinstance(v, str)]
        if missing:
            log.add(file, f"missing or non-text field(s) {missing}", line=line_no)
            return None
        if row["id"] in seen:
            log.add(file, f"duplicate id {row['id']!r} (first at {seen[row['id']]})", line=line_no)
            return None
        seen[row["id"]] = f"{file}:{line_no}"
        return row

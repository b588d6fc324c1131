"""Typed reads of raw JSON fields that report a located problem instead of raising."""
from __future__ import annotations

from typing import Any

from .errors import ProblemLog

_MISSING = object()


class FieldReader:
    """Reads fields of one raw record; every type problem names the file, line, case and field."""

    def __init__(self, log: ProblemLog, file: str, line: int, case: str | None = None):
        self.log, self.file, self.line, self.case = log, file, line, case
        self.ok = True

    def problem(self, message: str) -> None:
        self.ok = False
        self.log.add(self.file, message, line=self.line, case=self.case)

    def first(self, obj: dict, *names: str) -> Any:
        """The first present key among aliases (None when none is present)."""
        for name in names:
            if name in obj:
                return obj[name]
        return None

    def string(self, value: Any, field: str, required: bool = False) -> str | None:
        if value is None or (isinstance(value, str) and not value.strip()):
            if required:
                self.problem(f"field '{field}' is required and must be a non-empty string")
            return None
        if isinstance(value, (int, float)) and not isinstance(value, bool) and field.endswith(("id", "pmid", "code")):
            return str(value)
        if not isinstance(value, str):
            self.problem(f"field '{field}' must be a string, got {type(value).__name__}")
            return None
        return value.strip()

    def integer(self, value: Any, field: str) -> int | None:
        if value is None or value == "":
            return None
        if isinstance(value, bool):
            self.problem(f"field '{field}' must be an integer, got bool")
            return None
        number = None
        if isinstance(value, int):
            number = value
        elif isinstance(value, float) and value.is_integer():
            number = int(value)
        elif isinstance(value, str) and value.strip().lstrip("-").isdigit():
            number = int(value.strip())
        if number is None:
            self.problem(f"field '{field}' must be an integer, got {type(value).__name__} {str(value)[:40]!r}")
            return None
        if not -2**31 <= number < 2**31:  # the columns are int32
            self.problem(f"field '{field}' is out of range: {number}")
            return None
        return number

    def boolean(self, value: Any, field: str) -> bool | None:
        if value is None:
            return None
        if isinstance(value, bool):
            return value
        if isinstance(value, int) and value in (0, 1):
            return bool(value)
        if isinstance(value, str) and value.strip().lower() in {"true", "false", "yes", "no", "1", "0"}:
            return value.strip().lower() in {"true", "yes", "1"}
        self.problem(f"field '{field}' must be true/false, got {type(value).__name__} {str(value)[:40]!r}")
        return None

    def obj(self, value: Any, field: str, required: bool = True) -> dict:
        if value is None:
            if required:
                self.problem(f"field '{field}' is required (an object)")
            return {}
        if not isinstance(value, dict):
            self.problem(f"field '{field}' must be an object, got {type(value).__name__}")
            return {}
        return value

    def array(self, value: Any, field: str, required: bool = True) -> list:
        if value is None:
            if required:
                self.problem(f"field '{field}' is required (a list)")
            return []
        if not isinstance(value, list):
            self.problem(f"field '{field}' must be a list, got {type(value).__name__}")
            return []
        return value

"""Typed reads of raw JSON fields that report a located problem instead of raising."""
from __future__ import annotations

from typing import Any, Iterable

from .errors import ProblemLog, location
from .vocabulary import Vocabulary

_MISSING = object()


class FieldReader:
    """Reads fields of one raw record; every type problem names the file, line, case and field."""

    def __init__(self, log: ProblemLog, file: str, line: int, case: str | None = None):
        self.log, self.file, self.line, self.case = log, file, line, case
        self.ok = True

    def problem(self, message: str) -> None:
        self.ok = False
        self.log.add(self.file, message, line=self.line, case=self.case)

    @property
    def where(self) -> str:
        return location(self.file, self.line, self.case)

    def extras(self, record: dict, unknown: Iterable[str], known: Iterable[str]) -> dict:
        """Top-level keys the adapter does not know: kept (returned, for the `extra_fields` sidecar) and
        counted in the release report; under --strict a problem naming them and the `known` keys."""
        unknown = sorted(unknown, key=str)
        if not unknown:
            return {}
        if self.log.strict:
            self.problem(f"unknown field(s) {', '.join(map(str, unknown))}; rename or remove them "
                         f"(known: {', '.join(sorted(known))})")
            return {}
        for key in unknown:
            self.log.report.unknown_key(str(key), self.where)
        return {str(key): record[key] for key in unknown}

    def irregular(self, message: str, what: str | None = None) -> None:
        """A record unlike the paper's description but usable: kept and counted in the release report under
        `what` (default: the message); under --strict a problem with `message`."""
        if self.log.strict:
            self.problem(message)
        else:
            self.log.report.irregularity(what or message, self.where)

    def vocab(self, value: Any, field: str, vocabulary: Vocabulary, allowed: Iterable[str] | None = None) -> str | None:
        """A string field with a known vocabulary: the canonical value when a spelling maps to one, else the
        value verbatim. Both are listed in the release report (exact spellings are not); under --strict an
        unknown value is a problem."""
        if value is None or (isinstance(value, str) and not value.strip()):
            return None
        if not isinstance(value, str):
            self.problem(f"field '{field}' must be a string, got {type(value).__name__}")
            return None
        raw = value.strip()
        return self.vocab_found(raw, field, vocabulary.lookup(raw), allowed or vocabulary.canonical,
                                documented=raw.casefold() in vocabulary.documented)

    def vocab_found(self, raw: str, field: str, found: str | None, allowed: Iterable[str],
                    documented: bool = False) -> str | None:
        """Record the outcome of an adapter's own lookup of `raw` (found: canonical value or None);
        `documented`: `raw` is a listed spelling, not worth reporting."""
        if found is None and self.log.strict:
            self.problem(f"field '{field}' has unknown value {raw[:60]!r}; allowed: {', '.join(allowed)}")
            return None
        if found != raw and not documented:
            self.log.report.value(field, raw, found, self.where)
        return raw if found is None else found

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

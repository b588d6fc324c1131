"""Errors a builder reports to the person running it: where (file, line, case) and what to fix."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SourceProblem:
    """One thing wrong with the raw release, located as precisely as we can."""

    file: str
    message: str
    line: int | None = None
    case: str | None = None

    def __str__(self) -> str:
        where = self.file
        if self.line is not None:
            where += f", line {self.line}"
        if self.case is not None:
            where += f", case {self.case!r}"
        return f"{where}: {self.message}"


class BuildError(Exception):
    """The release cannot be built; carries every problem found (up to a cap)."""

    def __init__(self, problems: list[SourceProblem], truncated: bool = False):
        self.problems = problems
        self.truncated = truncated
        lines = [f"  - {p}" for p in problems]
        if truncated:
            lines.append("  - ... (more problems not shown; fix these first)")
        super().__init__(f"{len(problems)} problem(s) in the source release:\n" + "\n".join(lines))


class ProblemLog:
    """Collects problems while a source is read, so one run reports all of them at once."""

    def __init__(self, cap: int = 50):
        self.cap = cap
        self.problems: list[SourceProblem] = []
        self.truncated = False

    def add(self, file: str, message: str, line: int | None = None, case: str | None = None) -> None:
        if len(self.problems) >= self.cap:
            self.truncated = True
            return
        self.problems.append(SourceProblem(file=file, message=message, line=line, case=case))

    @property
    def full(self) -> bool:
        return self.truncated

    def raise_if_any(self) -> None:
        if self.problems:
            raise BuildError(self.problems, self.truncated)

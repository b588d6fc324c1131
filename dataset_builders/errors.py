"""Errors a builder reports to the person running it: where (file, line, case) and what to fix."""
from __future__ import annotations

from dataclasses import dataclass

from .release_report import ReleaseReport


@dataclass(frozen=True)
class SourceProblem:
    """One thing wrong with the raw release, located as precisely as we can."""

    file: str
    message: str
    line: int | None = None
    case: str | None = None

    def __str__(self) -> str:
        return f"{location(self.file, self.line, self.case)}: {self.message}"


def location(file: str, line: int | None = None, case: str | None = None) -> str:
    """'file, line N, case 'X'' (the parts that are known)."""
    where = file
    if line is not None:
        where += f", line {line}"
    if case is not None:
        where += f", case {case!r}"
    return where


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
    """Collects problems while a source is read, so one run reports all of them at once. `report` gathers
    what a lenient build keeps instead of refusing (unknown keys, unlisted values); `strict` makes those
    problems too."""

    def __init__(self, cap: int = 50, strict: bool = False):
        self.cap = cap
        self.strict = strict
        self.problems: list[SourceProblem] = []
        self.truncated = False
        self.report = ReleaseReport()

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

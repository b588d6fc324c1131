"""Versioned judge prompts: `<folder>/<name>.v<N>.txt` (each benchmark keeps its own in `prompts/`), a system part and a user template separated by a
line `=== USER ===`. The template uses `{placeholders}`; the candidate's text always goes in as quoted,
spotlighted data (`quote_candidate`, then spotlight.py), and {boundary}, {canary} and {criterion_id} name this
request's marking in either part. The version is part of every cache key."""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path

from .cache import text_sha

SEPARATOR = "=== USER ==="


@dataclass(frozen=True)
class Prompt:
    name: str
    version: int
    system: str
    user_template: str

    @property
    def id(self) -> str:
        return f"{self.name}.v{self.version}"

    @cached_property  # asked once per judge call: hashed once per prompt (a frozen dataclass may cache)
    def sha(self) -> str:
        return text_sha(self.system + SEPARATOR + self.user_template)[:12]

    def render(self, **variables: str) -> str:
        return self.user_template.format(**variables)

    def render_system(self, **marks: str) -> str:
        """The system part with this request's {boundary}, {canary} and {criterion_id} filled in (replaced, not
        formatted: a system part shows its JSON format with plain braces)."""
        text = self.system
        for name, value in marks.items():
            text = text.replace("{" + name + "}", value)
        return text


@lru_cache(maxsize=None)
def load_prompt(name: str, version: int | None = None, *, folder: Path) -> Prompt:
    """The given version, or the highest one present."""
    candidates = {}
    for path in folder.glob(f"{name}.v*.txt"):
        match = re.fullmatch(rf"{re.escape(name)}\.v(\d+)\.txt", path.name)
        if match:
            candidates[int(match.group(1))] = path
    if not candidates:
        raise FileNotFoundError(f"no judge prompt named {name!r} in {folder}")
    chosen = version if version is not None else max(candidates)
    if chosen not in candidates:
        raise FileNotFoundError(f"judge prompt {name!r} has no version {chosen} (have {sorted(candidates)})")
    text = candidates[chosen].read_text(encoding="utf-8")
    if SEPARATOR not in text:
        raise ValueError(f"{candidates[chosen]} lacks the '{SEPARATOR}' line")
    system, user = text.split(SEPARATOR, 1)
    return Prompt(name, chosen, system.strip(), user.strip())

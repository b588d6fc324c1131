"""A result as the leaderboard sees it (one row of a board)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..scoring.result import Result


@dataclass
class Entry:
    """A result as the leaderboard sees it: the public record, its id and (server-side only) the
    resampled primary-metric means used for paired rank tests (an array, or a loader called on first use:
    a board too large for paired tests never reads them)."""

    result: Result
    entry_id: str
    paired_resamples: np.ndarray | Callable[[], np.ndarray | None] | None = None

    @property
    def resamples(self) -> np.ndarray | None:
        if callable(self.paired_resamples):
            self.paired_resamples = self.paired_resamples()
        return self.paired_resamples


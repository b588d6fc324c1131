"""Time limits of a judge: a budget for every call of one submission, and a stall rule that gives up on an
endpoint which has answered nothing usable for a while (a hung judge costs seconds, not hours).

Both take the clock as a parameter, so tests drive them without waiting. Below them, the failure kinds a
result records in `protocol.judge_failures` (never the judge's text, which may echo the candidate).
"""
from __future__ import annotations

import threading
import time
from typing import Callable

# kinds of one failed call (the last thing that went wrong); "status NNN" is the HTTP status
TIMEOUT = "timeout"
CONNECTION = "connection"
TOO_LARGE = "body too large"
DECODE = "decode error"
ENVELOPE = "malformed envelope"
VERDICT = "malformed verdict"
WRONG_CRITERION = "wrong criterion"
NO_CANARY = "missing canary"
UNGROUNDED = "quote not in candidate"
INSTRUCTION_QUOTE = "quote is an instruction"
BUDGET = "budget exhausted"
UNAVAILABLE = "judge unavailable"
KINDS = (TIMEOUT, CONNECTION, "status NNN", TOO_LARGE, DECODE, ENVELOPE, VERDICT, WRONG_CRITERION, NO_CANARY,
         UNGROUNDED, INSTRUCTION_QUOTE, BUDGET, UNAVAILABLE)


def status_kind(status: int) -> str:
    return f"status {status}"


class Budget:
    """Seconds left for the judge calls of one submission, counted from the first request (a judge built at
    start-up and used later is not charged for the wait); `seconds <= 0` means no budget."""

    def __init__(self, seconds: float, clock: Callable[[], float] = time.monotonic):
        self.seconds, self.clock = seconds, clock
        self._start: float | None = None
        self._lock = threading.Lock()

    def start(self) -> None:
        with self._lock:
            if self._start is None:
                self._start = self.clock()

    def remaining(self) -> float:
        if self.seconds <= 0:
            return float("inf")
        with self._lock:
            start = self._start if self._start is not None else self.clock()
        return self.seconds - (self.clock() - start)


class Stall:
    """Open (give up) once the endpoint has given no usable answer for `seconds` since its last one (or since
    the first request) and at least `min_failures` attempts failed in that time: a short outage of a few
    failed attempts does not trip it, a judge that hangs on every call does after about `seconds`."""

    def __init__(self, seconds: float, min_failures: int, clock: Callable[[], float] = time.monotonic):
        self.seconds, self.min_failures, self.clock = seconds, max(1, min_failures), clock
        self._since: float | None = None
        self._failures = 0
        self._lock = threading.Lock()

    def started(self) -> None:
        with self._lock:
            if self._since is None:
                self._since = self.clock()

    def succeeded(self) -> None:
        with self._lock:
            self._since, self._failures = self.clock(), 0

    def failed(self) -> None:
        with self._lock:
            self._failures += 1

    @property
    def open(self) -> bool:
        if self.seconds <= 0:
            return False
        with self._lock:
            return (self._since is not None and self._failures >= self.min_failures
                    and self.clock() - self._since >= self.seconds)

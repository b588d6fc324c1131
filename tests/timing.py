"""Time checks that hold on a loaded machine: never "faster than N seconds", always a ratio of two runs
measured in the same test, and in CPU seconds of this process (time.process_time), not wall time: waiting for
a core that other processes hold does not count, and a slow machine slows both sides alike.

- `growth(fn, make, n)`: the time at k*n over the time at n (each the best of a few runs). A linear
  function grows ~k-fold, a quadratic one ~k^2-fold: with k = 8, 8 against 64. `assert_linear` allows
  LINEAR_SLACK * k (20), far from both the noise of a linear run and the 64 of a quadratic one, plus
  COPY_ALLOWANCE plain copies of the larger input (fixed costs of microsecond calls, see assert_linear).
- `cpu_seconds` + `assert_grows_linearly`: for work too large to repeat (a million-line file, a CLI child
  process), CPU seconds (this process and its children; other processes do not add to them) at n and at k*n.
"""
from __future__ import annotations

import gc
import resource
import time
from typing import Callable

GROWTH = 8  # k: the larger input is k times the smaller
LINEAR_SLACK = 2.5  # a linear function may grow up to 2.5 k-fold (cache effects, noise); a quadratic one grows k^2


def best_time(fn: Callable[[], object], repeats: int = 3, min_seconds: float = 0.02) -> float:
    """Seconds per call: the best of `repeats` rounds, each calling `fn` until `min_seconds` have passed (so a
    microsecond call is timed over many calls, not against the clock's resolution). GC off while timing."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        best = float("inf")
        for _ in range(repeats):
            calls, start = 0, time.process_time()
            while True:
                fn()
                calls += 1
                elapsed = time.process_time() - start
                if elapsed >= min_seconds:
                    break
            best = min(best, elapsed / calls)
        return best
    finally:
        if enabled:
            gc.enable()


def growth(fn: Callable[[object], object], make: Callable[[int], object], n: int, k: int = GROWTH) -> tuple[float, float]:
    """(time at n, time at k*n), inputs built before timing."""
    small, large = make(n), make(k * n)
    return best_time(lambda: fn(small)), best_time(lambda: fn(large))


COPY_ALLOWANCE = 20  # the larger run may also spend 20 plain copies of its input (allocation, page faults)


def assert_linear(fn: Callable[[object], object], make: Callable[[int], object], n: int, k: int = GROWTH,
                  label: object = "") -> float:
    """Fails when `fn` grows faster than linearly from n to k*n; returns the ratio. The larger input is timed
    again (up to 3 rounds) only while it is over the bound, and not at all once it is far over (a quadratic
    scan at k*n can take minutes; repeating it would only delay the failure).

    A call of microseconds on the small input is dominated by fixed costs that do not scale by k: copying a
    100,000-character string costs page faults that a 12,500-character one does not (measured: 0.02 ms at n,
    1.1 ms at 8n for a linear scan). So the larger run may also take COPY_ALLOWANCE times a plain copy of the
    larger input, timed here: milliseconds, against the seconds a quadratic scan takes at 10^5 characters."""
    small_input, large_input = make(n), make(k * n)
    small = best_time(lambda: fn(small_input))
    copy = best_time(lambda: large_input.upper() if isinstance(large_input, str) else bytes(large_input))
    bound = LINEAR_SLACK * k * small + COPY_ALLOWANCE * copy
    large = float("inf")
    for _ in range(3):
        large = min(large, best_time(lambda: fn(large_input), repeats=1))
        if large < bound or large > 2 * bound:
            break
    assert large < bound, (f"{label}: {large * 1e3:.2f} ms at {k}n against {small * 1e3:.2f} ms at n "
                           f"(n = {n:,}): {large / small:.1f}x; allowed {LINEAR_SLACK * k:g}x plus {COPY_ALLOWANCE} "
                           f"copies of the input ({copy * 1e3:.3f} ms each)")
    return large / small


def assert_within(project: float, baseline: float, ratio: float, label: object = "") -> None:
    """Fails when the project took more than `ratio` times the floor timed alongside it."""
    assert project < ratio * baseline, (f"{label}: {project:.2f} s against a {baseline:.2f} s floor timed in the same "
                                        f"test: {project / baseline:.1f}x, allowed {ratio:g}x")


def cpu_seconds(fn: Callable[[], object]) -> tuple[object, float]:
    """(fn(), CPU seconds it used in this process and in the child processes it waited for). CPU time, not
    wall time: other processes on a loaded machine do not add to it (microsecond resolution, not os.times' 10 ms)."""
    def used() -> float:
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        return time.process_time() + children.ru_utime + children.ru_stime

    before = used()
    result = fn()
    return result, used() - before


def assert_grows_linearly(small: float, large: float, k: int = GROWTH, label: object = "") -> float:
    """For work timed once at n and once at k*n (too large to repeat): fails above LINEAR_SLACK * k."""
    ratio = large / max(small, 0.01)  # a run under 10 ms of CPU counts as 10 ms (timer and start-up noise)
    assert ratio < LINEAR_SLACK * k, (f"{label}: {large:.2f} s at {k}n against {small:.2f} s at n: {ratio:.1f}x, "
                                      f"linear would be ~{k}x")
    return ratio

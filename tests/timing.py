"""Time checks that hold on a loaded machine: never "faster than N seconds", always a ratio of two runs
measured in the same test, so a slow or busy machine slows both sides alike.

- `growth(fn, make, n)`: the time at k*n over the time at n (each the best of a few runs). A linear
  function grows ~k-fold, a quadratic one ~k^2-fold: with k = 8, 8 against 64. `assert_linear` allows
  LINEAR_SLACK * k (20), far from both the noise of a linear run and the 64 of a quadratic one.
- `assert_within(project, baseline, ratio)`: the project's time against a floor timed in the same test
  (for work too large to repeat at two sizes: a plain pass over the same file).
"""
from __future__ import annotations

import gc
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
            calls, start = 0, time.perf_counter()
            while True:
                fn()
                calls += 1
                elapsed = time.perf_counter() - start
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


def assert_linear(fn: Callable[[object], object], make: Callable[[int], object], n: int, k: int = GROWTH,
                  label: object = "") -> float:
    """Fails when `fn` grows faster than linearly from n to k*n; returns the ratio. The larger input is timed
    again (up to 3 rounds) only while it is over the bound, and not at all once it is far over (a quadratic
    scan at k*n can take minutes; repeating it would only delay the failure)."""
    small_input, large_input = make(n), make(k * n)
    small = best_time(lambda: fn(small_input))
    bound = LINEAR_SLACK * k
    large = float("inf")
    for _ in range(3):
        large = min(large, best_time(lambda: fn(large_input), repeats=1))
        if large / small < bound or large / small > 2 * bound:
            break
    ratio = large / small
    assert ratio < bound, (f"{label}: {large * 1e3:.2f} ms at {k}n against {small * 1e3:.2f} ms at n "
                           f"(n = {n:,}): {ratio:.1f}x, linear would be ~{k}x")
    return ratio


def assert_within(project: float, baseline: float, ratio: float, label: object = "") -> None:
    """Fails when the project took more than `ratio` times the floor timed alongside it."""
    assert project < ratio * baseline, (f"{label}: {project:.2f} s against a {baseline:.2f} s floor timed in the same "
                                        f"test: {project / baseline:.1f}x, allowed {ratio:g}x")

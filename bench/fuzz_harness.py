"""The harness every `bench/fuzz_<reader>.py` shares: coverage-guided fuzzing with atheris, each input under a
time budget (an interval timer) and a memory budget (RLIMIT_AS for the process, plus how far the input
raised the peak RSS; libFuzzer's own corpus makes the process grow slowly, a few bytes per input), and a `--smoke` mode that replays the seed corpus (tests/fuzz/<reader>/) and a few hundred
seeded mutations of it through the same entry point (the pytest smoke run, tests/test_fuzz_smoke.py).

    nice -n 10 .venv/bin/python bench/fuzz_letters.py -max_total_time=600 [CORPUS_DIR ...]
    .venv/bin/python bench/fuzz_letters.py --smoke [--iterations 300]

A hang, a MemoryError, a peak over the budget or an unexpected exception is a crash: atheris writes the
input to crash-<sha1> (run it again with `bench/fuzz_x.py crash-<sha1>`); `--smoke` exits 1 naming the input.
The fuzzers import nothing of the project before `instrumented()`, so the imports under it get coverage.
"""
from __future__ import annotations

import atexit
import contextlib
import os
import random
import resource
import shutil
import signal
import sys
import tempfile
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
SEEDS = ROOT / "tests" / "fuzz"
SECONDS = 5.0  # per input: the inputs are a few KB, a linear reader needs milliseconds
MEMORY_MB = 1500  # address space beyond the interpreter and the imports (MB = 10^6 bytes)
PEAK_MB = 200  # how far one input may raise the process's peak RSS (a few KB must not decode into more)
SMOKE_ITERATIONS = 300

for path in (str(ROOT), str(ROOT / "tests")):
    if path not in sys.path:
        sys.path.insert(0, path)


class OverBudget(Exception):
    """An input took longer than SECONDS or raised the peak RSS by more than PEAK_MB."""


def scratch_folder(prefix: str) -> Path:
    """A temporary folder for one fuzzer process, removed when the process ends (every test run used to leave one)."""
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    atexit.register(shutil.rmtree, folder, True)
    return folder


def _fuzzing() -> bool:
    main = sys.modules.get("__main__")
    return Path(getattr(main, "__file__", "") or "").name.startswith("fuzz_") and "--smoke" not in sys.argv


def instrumented():
    """Coverage instrumentation of the imports under it, when this process fuzzes (not in --smoke or pytest)."""
    if _fuzzing():
        import atheris

        return atheris.instrument_imports(include=["leaderboard", "benchmarks"])
    return contextlib.nullcontext()


def _on_alarm(signum, frame):
    raise OverBudget(f"one input ran longer than {SECONDS:g} s")


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1000  # kB on Linux


def budgeted(one_input: Callable[[bytes], None], seconds: float = SECONDS, peak_mb: float = PEAK_MB):
    """`one_input` under the per-input time budget and the per-input peak-RSS budget."""
    def run(data: bytes) -> None:
        before = _peak_mb()
        signal.signal(signal.SIGALRM, _on_alarm)
        signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            one_input(data)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        if _peak_mb() - before > peak_mb:
            raise OverBudget(f"one input raised the peak RSS by {_peak_mb() - before:.0f} MB (budget {peak_mb:g} MB)")

    return run


def mutations(seeds: list[bytes], count: int, seed: int = 25) -> list[bytes]:
    """Deterministic byte-level mutations of the seeds (flip, insert, delete, duplicate a slice, splice)."""
    rng = random.Random(seed)
    out = []
    pool = seeds or [b""]
    for _ in range(count):
        data = bytearray(rng.choice(pool))
        for _ in range(rng.randint(1, 4)):
            kind = rng.randrange(5)
            at = rng.randrange(len(data) + 1)
            if kind == 0 and data:
                data[min(at, len(data) - 1)] = rng.randrange(256)
            elif kind == 1:
                data[at:at] = bytes(rng.choice(b'\x00\n\r"{}[],:\\ \xf0\x9f\x98\x80aA1') for _ in range(rng.randint(1, 8)))
            elif kind == 2 and data:
                del data[at:at + rng.randint(1, 16)]
            elif kind == 3 and data:
                data[at:at] = data[at:at + rng.randint(1, 64)] * rng.randint(2, 20)
            else:
                other = rng.choice(pool)
                data = data[:at] + other[rng.randrange(len(other) + 1):]
        out.append(bytes(data))
    return out


def seeds_of(name: str) -> list[Path]:
    folder = SEEDS / name
    return sorted(p for p in folder.iterdir() if p.is_file()) if folder.is_dir() else []


def smoke(name: str, one_input: Callable[[bytes], None], iterations: int) -> int:
    """Replay the seeds, then `iterations` mutations of them; 1 and the failing input's description on a finding."""
    run = budgeted(one_input)
    files = seeds_of(name)
    seeds = [p.read_bytes() for p in files]
    cases = [(f"seed {p.name}", data) for p, data in zip(files, seeds)]
    cases += [(f"mutation {k}", data) for k, data in enumerate(mutations(seeds, iterations))]
    for label, data in cases:
        try:
            run(data)
        except BaseException as exc:  # noqa: BLE001 - every escape is a finding
            print(f"FINDING in {name}, {label} ({len(data)} bytes, {data[:80]!r}): {type(exc).__name__}: {exc}")
            return 1
    print(f"{name}: {len(cases)} inputs ({len(seeds)} seeds), no finding")
    return 0


def fuzz_main(name: str, one_input: Callable[[bytes], None]) -> int:
    """Entry point of every fuzzer: `--smoke [--iterations N]`, else atheris with libFuzzer's own arguments."""
    args = sys.argv[1:]
    for seed in seeds_of(name)[:20]:  # lazy imports (pyarrow maps ~1.3 GB of address space) before the cap
        try:
            one_input(seed.read_bytes())
        except Exception:  # noqa: BLE001 - findings are reported by the run itself
            pass
    from leaderboard.scoring.isolation import _cap_memory  # the scoring child's own cap (imports only the stdlib)

    _cap_memory(MEMORY_MB)
    if "--smoke" in args:
        iterations = int(args[args.index("--iterations") + 1]) if "--iterations" in args else SMOKE_ITERATIONS
        return smoke(name, one_input, iterations)
    import atheris

    corpus = [a for a in args if not a.startswith("-")]
    flags = [a for a in args if a.startswith("-")]
    if not corpus:  # seeds are read, new inputs go to a scratch folder (not into tests/)
        scratch = Path(os.environ.get("FUZZ_WORK", "/tmp")) / f"fuzz-{name}"
        scratch.mkdir(parents=True, exist_ok=True)
        corpus = [str(scratch), str(SEEDS / name)]
    # libFuzzer's own -timeout would share SIGALRM with the per-input timer above: ours measures alone
    defaults = ["-rss_limit_mb=0", "-timeout=0", "-max_len=8192"]
    atheris.Setup([sys.argv[0], *defaults, *flags, *corpus], budgeted(one_input))
    atheris.Fuzz()
    return 0

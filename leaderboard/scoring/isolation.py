"""Scores one submission (a `ScoreJob`), or checks one upload (an `upload_check.CheckJob`: the one door for
upload bytes), in a child process with a wall-time and a memory limit.

A scorer runs Python code over submitted text; one pathological file must not freeze or exhaust the
process that serves pages (Python's regex engine holds the GIL, a decoded file can take gigabytes). So
`Service.score_one` hands the job to a child: `python -m leaderboard.scoring.isolation` (a fresh interpreter,
no inherited threads or locks), kept between jobs so the ICD title index and models load once, when
the job can be pickled; else a forked child per job (tests pass lambdas as context factories). The child
caps its own address space (RLIMIT_AS) and dies with its parent; the parent kills it at the time
limit and starts a fresh one for the next job. Either limit hit raises `ScoringLimit` with a message a
submitter can read.
"""
from __future__ import annotations

import os
import pickle
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

MEMORY_EXIT = 3  # the child ran out of its memory budget (MemoryError)
ERROR_EXIT = 1  # the scorer raised; the traceback goes to the parent (server log only)
IDLE_EXIT = 4  # the persistent child exits after this long without a job, freeing its memory
IDLE_SECONDS = 300.0


class ScoringLimit(Exception):
    """The child hit the time or memory limit, or died; the message is safe to show the submitter. `kind` is
    "time", "memory" or "killed" (callers word their own verdict from it, e.g. an upload check)."""

    def __init__(self, message: str, kind: str = "time"):
        super().__init__(message)
        self.kind = kind


class ScoringCrash(Exception):
    """The scorer raised inside the child; the message holds the child's traceback (for the server log)."""


@dataclass
class ScoreJob:
    """Everything the child needs; `run()` is what it executes."""

    benchmark: str
    upload: Path
    data_dir: Path
    model: dict
    context_factory: Callable[[str], Any]
    key: Any = None  # the parent's cached AnswerKey (saves reloading it in the child)
    validated: Path | None = None  # where the check kept what it validated (validated_upload.py), if it did

    def run(self):
        from .result import ModelInfo
        from .score_file import score_file
        from ..intake.validated_upload import load

        context = self.context_factory(self.benchmark)
        context.model = ModelInfo(**self.model)
        context.keep_per_item = True
        report = load(self.validated) if self.validated is not None else None  # None: validate the upload here
        _, result = score_file(self.benchmark, self.upload, self.data_dir, context, key=self.key, report=report)
        return result


@dataclass(frozen=True)
class Limits:
    seconds: float = 3600.0
    memory_mb: int = 4000  # MB = 10^6 bytes of address space beyond the bare interpreter


def _cap_memory(memory_mb: int) -> None:
    import resource

    page = os.sysconf("SC_PAGE_SIZE")
    with open("/proc/self/statm") as handle:  # what the interpreter already maps is not the scorer's
        current = int(handle.read().split()[0]) * page
    limit = current + memory_mb * 10**6
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _die_with_parent(parent: int) -> None:
    """A child outliving a killed Space would keep scoring (and writing the judge cache) for nobody."""
    import ctypes
    import signal

    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG (Linux)
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(ERROR_EXIT)


def _score(job_file: Path, out: Path, err: Path) -> int:
    """Run one pickled job; the result (pickled) to `out`, a traceback to `err`; an exit-style code."""
    try:
        job = pickle.loads(job_file.read_bytes())
        result = job.run()
        del job
        with open(out, "wb") as handle:
            pickle.dump(result, handle, protocol=pickle.HIGHEST_PROTOCOL)
        return 0
    except MemoryError:
        return MEMORY_EXIT
    except ImportError as exc:  # a module's shared library could not be mapped within the memory limit
        if "failed to map segment" in str(exc) or "cannot allocate memory" in str(exc).lower():
            return MEMORY_EXIT
        err.write_text(traceback.format_exc()[-8000:], encoding="utf-8")
        return ERROR_EXIT
    except Exception:  # noqa: BLE001 - reported to the parent through the code and `err`
        try:
            err.write_text(traceback.format_exc()[-8000:], encoding="utf-8")
        except MemoryError:
            return MEMORY_EXIT
        return ERROR_EXIT


def serve(memory_mb: int, parent: int, niceness: int = 0) -> int:
    """The persistent child: one "JOB\tOUT\tERR" line per job on stdin, one code per line back on the
    original stdout (the scorer's own prints go to stderr, so they cannot garble the answers)."""
    import select

    _die_with_parent(parent)
    if niceness:
        os.nice(niceness)
    channel = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    try:
        _cap_memory(memory_mb)
    except MemoryError:
        return MEMORY_EXIT
    while True:
        ready, _, _ = select.select([sys.stdin], [], [], IDLE_SECONDS)
        if not ready:
            return IDLE_EXIT
        line = sys.stdin.readline()
        if not line:
            return 0
        job_file, out, err = (Path(part) for part in line.rstrip("\n").split("\t"))
        code = _score(job_file, out, err)
        channel.write(f"{code}\n")
        if code == MEMORY_EXIT:  # the heap may be in any state: a fresh child takes the next job
            return code


class ScoringProcess:
    """The parent's handle on the scoring child (one job at a time)."""

    def __init__(self, niceness: int = 0) -> None:
        self.niceness = niceness  # the child's CPU priority below the parent's (the parent serves pages)
        self._process: subprocess.Popen | None = None
        self._memory_mb: int | None = None
        self._memory_mb_wanted = Limits.memory_mb
        self._close_after = False
        self._lock = threading.Lock()

    def close_when_idle(self) -> None:
        """Stop the child now if no job runs, else right after the running one (which is not cut short)."""
        if self._lock.acquire(blocking=False):
            try:
                self.close()
            finally:
                self._lock.release()
        else:
            self._close_after = True

    def close(self) -> None:
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            process.kill()
            process.wait()

    def _child(self, memory_mb: int) -> subprocess.Popen:
        if self._process is not None and (self._process.poll() is not None or self._memory_mb != memory_mb):
            self.close()
        if self._process is None:
            path = os.pathsep.join(p for p in sys.path if p)  # the child unpickles what the parent can import
            self._process = _spawn(
                [sys.executable, "-m", "leaderboard.scoring.isolation", str(memory_mb), str(os.getpid()), str(self.niceness)],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1,
                env={**os.environ, "PYTHONPATH": path})
            self._memory_mb = memory_mb
        return self._process

    def _ask(self, line: str, seconds: float) -> int | None:
        """The child's code for one job; None at the time limit (the child is killed)."""
        import select

        for attempt in range(2):
            process = self._child(self._memory_mb_wanted)
            try:
                process.stdin.write(line)
                process.stdin.flush()
                ready, _, _ = select.select([process.stdout], [], [], seconds)
            except (BrokenPipeError, OSError):
                ready = [process.stdout]
            if not ready:
                self.close()
                return None
            answer = process.stdout.readline()
            if answer.strip():
                code = int(answer)
                if code == MEMORY_EXIT:  # serve() exits after it: the next job must not land on the exiting child
                    self.close()
                return code
            code = process.wait()
            self._process = None
            if code != IDLE_EXIT or attempt:  # it died on this job (a signal: the kernel's OOM killer...)
                return code
        return ERROR_EXIT

    def run(self, job: ScoreJob, limits: Limits):
        """The job's result, computed in a child process within `limits`."""
        with self._lock:
            try:
                return self._run(job, limits)
            finally:
                if self._close_after:
                    self._close_after = False
                    self.close()

    def _run(self, job: ScoreJob, limits: Limits):
        with tempfile.TemporaryDirectory(prefix="leaderboard-score-") as folder:
            folder = Path(folder)
            job_file, out, err = folder / "job.pickle", folder / "result.pickle", folder / "error.txt"
            start = time.monotonic()
            try:
                job_file.write_bytes(pickle.dumps(job, protocol=pickle.HIGHEST_PROTOCOL))
                picklable = True
            except Exception:  # a lambda or a live client in the context factory: fork instead
                picklable = False
            if picklable:
                self._memory_mb_wanted = limits.memory_mb
                code = self._ask(f"{job_file}\t{out}\t{err}\n", limits.seconds)
            else:
                code = _run_forked(job, out, err, limits)
            seconds = time.monotonic() - start
            if code is None:
                raise ScoringLimit(f"scoring stopped: it ran longer than the {limits.seconds:,.0f} s limit", "time")
            if code == MEMORY_EXIT:
                raise ScoringLimit(f"scoring stopped: it needed more than the {limits.memory_mb:,} MB memory limit", "memory")
            if code < 0:
                raise ScoringLimit(f"scoring stopped: the scoring process was killed (signal {-code}) after "
                                   f"{seconds:.0f} s, most likely for using too much memory", "killed")
            if code != 0 or not out.is_file():
                detail = err.read_text(encoding="utf-8") if err.is_file() else ""
                raise ScoringCrash(detail or f"the scoring process exited with code {code}")
            with out.open("rb") as handle:
                return pickle.load(handle)

    def __del__(self) -> None:
        self.close()


_SPAWNER = None
_SPAWNER_LOCK = threading.Lock()


def _spawn(args: list[str], **options) -> subprocess.Popen:
    """Popen from one long-lived thread: PR_SET_PDEATHSIG fires when the *thread* that started the child exits,
    and the threads that ask for a child (a web server's request threads) come and go (an upload check was
    killed the moment the submitting thread ended)."""
    global _SPAWNER
    from concurrent.futures import ThreadPoolExecutor

    with _SPAWNER_LOCK:
        if _SPAWNER is None:
            _SPAWNER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="isolation-spawner")
    return _SPAWNER.submit(subprocess.Popen, args, **options).result()


def _forget_spawner() -> None:
    """In a forked child: the spawner's thread did not survive the fork, so a job submitted to it would wait
    forever (mutmut's fork server hung on every scoring test); the child starts its own on first use."""
    global _SPAWNER, _SPAWNER_LOCK
    _SPAWNER, _SPAWNER_LOCK = None, threading.Lock()


os.register_at_fork(after_in_child=_forget_spawner)


def _run_forked(job: ScoreJob, out: Path, err: Path, limits: Limits) -> int | None:
    import multiprocessing

    holder = {"job": job}  # the forked child reads the job from memory: nothing to pickle

    def target() -> None:
        _die_with_parent(parent)
        try:
            _cap_memory(limits.memory_mb)
        except MemoryError:
            os._exit(MEMORY_EXIT)
        try:
            result = holder["job"].run()
            with open(out, "wb") as handle:
                pickle.dump(result, handle, protocol=pickle.HIGHEST_PROTOCOL)
            os._exit(0)
        except MemoryError:
            os._exit(MEMORY_EXIT)
        except BaseException:  # noqa: BLE001
            try:
                err.write_text(traceback.format_exc()[-8000:], encoding="utf-8")
            finally:
                os._exit(ERROR_EXIT)

    parent = os.getpid()
    process = multiprocessing.get_context("fork").Process(target=target, daemon=True)
    process.start()
    process.join(limits.seconds)
    if process.is_alive():
        process.kill()
        process.join()
        return None
    return process.exitcode


if __name__ == "__main__":
    sys.exit(serve(int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else 0))

"""Mutation-gate tests of leaderboard.scoring.isolation (issue 29 item 1): every exit code, every limit message
and every hand-off between the parent and its scoring child pinned to an exact value.

The child's entry points (`serve`, `_score`, `_die_with_parent`, `_forget_spawner`) are also called in this
process, with the memory cap's `setrlimit` and the file descriptors swapped for test ones, so that a planted bug
in them is reached by a test (mutmut attributes a function to a test only when it runs in the test's process).
Limits and clocks are parameters: a time limit is a fraction of a second, a duration comes from a fake clock."""
from __future__ import annotations

import ctypes
import gc
import os
import resource
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
import types
from pathlib import Path

import pytest

from leaderboard.scoring import isolation
from leaderboard.scoring.isolation import Limits, ScoreJob, ScoringCrash, ScoringLimit, ScoringProcess

PR_SET_PDEATHSIG, PR_GET_PDEATHSIG = 1, 2
HANG_BOUND_S = 60  # only bounds a hang; never a speed


# ---- jobs (module level: they pickle, so they run in the persistent child) ----

class Returns:
    def __init__(self, value):
        self.value = value

    def run(self):
        return self.value


class Raises:
    def __init__(self, exc):
        self.exc = exc

    def run(self):
        raise self.exc


class Reports:
    """What the child looks like from inside: pid, niceness, address-space cap, parent-death signal."""

    def run(self):
        return {"pid": os.getpid(), "nice": os.nice(0), "cap": resource.getrlimit(resource.RLIMIT_AS),
                "deathsig": death_signal()}


class ExitsOnce:
    """Exits with `code` the first time (leaving a marker), returns "second" the next time."""

    def __init__(self, marker: Path, code: int):
        self.marker, self.code = marker, code

    def run(self):
        if not self.marker.exists():
            self.marker.touch()
            os._exit(self.code)
        return "second"


class AlwaysExits:
    """Counts its runs (one line each) and exits with `code` every time."""

    def __init__(self, counter: Path, code: int):
        self.counter, self.code = counter, code

    def run(self):
        with open(self.counter, "a") as handle:
            handle.write("run\n")
        os._exit(self.code)


class KillsItself:  # what the kernel's OOM killer does to a child
    def run(self):
        os.kill(os.getpid(), signal.SIGKILL)


class Blocks:
    def run(self):
        time.sleep(HANG_BOUND_S)


class ProtocolProbe:
    """Unpickles as the pickle protocol it was written with."""

    def __reduce_ex__(self, protocol):
        return (int, (protocol,))


class MakesProbe:
    def run(self):
        return ProtocolProbe()


class SaysItsProtocol:
    """A job that, unpickled in the child, returns the pickle protocol the parent wrote it with."""

    def __reduce_ex__(self, protocol):
        return (Returns, (protocol,))


class Prints:
    """A scorer whose library writes to fd 1 (C code does): it must not garble the answer channel."""

    def run(self):
        os.write(1, b"77\n")
        return "printed"


class InDaemon:
    def run(self):
        import multiprocessing

        return multiprocessing.current_process().daemon


class Unpicklable:
    """Holds a lambda: the job cannot be pickled, so it runs in a forked child."""

    def __init__(self, fn):
        self.fn = fn

    def run(self):
        return self.fn()


def death_signal() -> int:
    value = ctypes.c_int(-1)
    ctypes.CDLL(None, use_errno=True).prctl(PR_GET_PDEATHSIG, ctypes.byref(value))
    return value.value


@pytest.fixture
def no_death_signal():
    yield
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, 0)  # what _die_with_parent set on this process


@pytest.fixture
def room_to_nice():
    """Niceness stops at 19 (a mutation run is already nice) and is per thread on Linux (children inherit the
    spawner thread's): this thread and the spawner start from at most 15 so +3 shows; restored after. Yields the
    spawner thread's niceness (what a child's is relative to)."""
    isolation._spawn([sys.executable, "-c", "pass"]).wait()  # the spawner thread exists from here on
    threads = [threading.get_native_id()] + [t.native_id for t in threading.enumerate()
                                              if t.name.startswith("isolation-spawner")]
    before = {tid: os.getpriority(os.PRIO_PROCESS, tid) for tid in threads}
    for tid, nice in before.items():  # lowered only under a nice runner; that runs as root
        os.setpriority(os.PRIO_PROCESS, tid, min(nice, 15))
    yield os.getpriority(os.PRIO_PROCESS, threads[-1])
    for tid, nice in before.items():
        os.setpriority(os.PRIO_PROCESS, tid, nice)


@pytest.fixture
def ascii_locale():
    """A process whose locale encoding is ASCII (LANG unset, no UTF-8 mode): tracebacks are still written as UTF-8."""
    import locale

    before = locale.setlocale(locale.LC_CTYPE)
    locale.setlocale(locale.LC_CTYPE, "C")
    yield
    locale.setlocale(locale.LC_CTYPE, before)


@pytest.fixture
def scorer():
    process = ScoringProcess()
    yield process
    process.close()


# ---- plain values ----

def test_exit_codes_limits_and_the_default_limit_kind():
    assert (isolation.MEMORY_EXIT, isolation.ERROR_EXIT, isolation.IDLE_EXIT, isolation.IDLE_SECONDS) == (3, 1, 4, 300.0)
    assert (Limits().seconds, Limits().memory_mb) == (3600.0, 4000)
    assert ScoringLimit("m").kind == "time" and ScoringLimit("m", "memory").kind == "memory"
    assert str(ScoringLimit("the message", "killed")) == "the message"


# ---- the child's side, in this process ----

def test_cap_memory_allows_exactly_the_budget_beyond_what_the_interpreter_maps(monkeypatch):
    calls = []
    monkeypatch.setattr(resource, "setrlimit", lambda which, limits: calls.append((which, limits)))
    monkeypatch.setattr(isolation.os, "sysconf", lambda name: {"SC_PAGE_SIZE": 1000}[name])  # a page of 1000 bytes
    pages = lambda: int(Path("/proc/self/statm").read_text().split()[0])  # noqa: E731
    before = pages()
    isolation._cap_memory(7)
    after = pages()
    assert len(calls) == 1
    which, (soft, hard) = calls[0]
    assert which == resource.RLIMIT_AS and soft == hard
    mapped = soft - 7 * 10**6
    assert mapped % 1000 == 0 and before <= mapped // 1000 <= after  # total pages (field 0) x page size


def test_die_with_parent_sets_sigkill_as_the_parent_death_signal(no_death_signal):
    isolation._die_with_parent(os.getppid())
    assert death_signal() == signal.SIGKILL


def test_die_with_parent_exits_at_once_when_the_parent_is_already_gone(no_death_signal):
    isolation._die_with_parent(os.getppid())  # in this process too, for the mutation runner's call map
    pid = os.fork()
    if pid == 0:
        try:
            isolation._die_with_parent(-1)  # not our parent: it "died" before prctl took effect
            os._exit(0)
        except BaseException:
            os._exit(2)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 1


def test_score_writes_the_result_and_returns_zero(tmp_path):
    job, out, err = tmp_path / "job.pickle", tmp_path / "out.pickle", tmp_path / "err.txt"
    import pickle

    job.write_bytes(pickle.dumps(Returns({"a": 1})))
    assert isolation._score(job, out, err) == 0
    assert pickle.loads(out.read_bytes()) == {"a": 1} and not err.exists()
    job.write_bytes(pickle.dumps(MakesProbe()))
    assert isolation._score(job, out, err) == 0
    assert pickle.loads(out.read_bytes()) == pickle.HIGHEST_PROTOCOL


@pytest.mark.parametrize("exc, code", [
    (MemoryError(), 3),
    (ImportError("libfoo.so: failed to map segment from shared object"), 3),
    (ImportError("libfoo.so: Cannot Allocate Memory"), 3),
])
def test_score_reports_running_out_of_memory_as_the_memory_code(tmp_path, exc, code):
    import pickle

    job, out, err = tmp_path / "job.pickle", tmp_path / "out.pickle", tmp_path / "err.txt"
    job.write_bytes(pickle.dumps(Raises(exc)))
    assert isolation._score(job, out, err) == code
    assert not out.exists() and not err.exists()


@pytest.mark.parametrize("exc, last", [
    (ImportError("no module named scorer_ü"), "ImportError: no module named scorer_ü\n"),
    (ImportError("no module named " + "q" * 9000), "q" * 100 + "\n"),
    (RuntimeError("Grenzwert überschritten"), "RuntimeError: Grenzwert überschritten\n"),
    (RuntimeError("bug " + "y" * 9000), "y" * 100 + "\n"),
])
def test_score_sends_the_last_8000_characters_of_the_traceback(tmp_path, exc, last, ascii_locale):
    import pickle

    job, out, err = tmp_path / "job.pickle", tmp_path / "out.pickle", tmp_path / "err.txt"
    job.write_bytes(pickle.dumps(Raises(exc)))
    assert isolation._score(job, out, err) == 1
    text = err.read_text(encoding="utf-8")
    assert text.endswith(last) and not out.exists()
    if len(str(exc)) > 8000:
        assert len(text) == 8000 and "Traceback" not in text  # the tail, cut to exactly 8000 characters
    else:
        assert text.startswith("Traceback (most recent call last):")


def test_score_gives_the_memory_code_when_even_the_traceback_cannot_be_written(tmp_path):
    import pickle

    class Full:
        def write_text(self, *args, **kwargs):
            raise MemoryError

    job = tmp_path / "job.pickle"
    job.write_bytes(pickle.dumps(Raises(RuntimeError("bug"))))
    assert isolation._score(job, tmp_path / "out.pickle", Full()) == 3


class Served:
    def __init__(self, code, answers, caps):
        self.code, self.answers, self.caps = code, answers, caps


def serve_here(monkeypatch, stdin, memory_mb=5, niceness=None, cap=None) -> Served:
    """`serve` in this process: stdin from `stdin`, the answer channel (fd 1) a pipe, fd 2 a file, setrlimit
    recorded; `niceness` None calls it without one (the default)."""
    import tempfile

    caps = []
    monkeypatch.setattr(resource, "setrlimit", cap or (lambda which, limits: caps.append((which, limits))))
    monkeypatch.setattr(sys, "stdin", stdin)
    read_end, write_end = os.pipe()
    saved, saved_err = os.dup(1), os.dup(2)
    os.dup2(write_end, 1)
    os.close(write_end)
    with tempfile.TemporaryFile() as errors:
        os.dup2(errors.fileno(), 2)
        try:
            args = (memory_mb, os.getppid()) if niceness is None else (memory_mb, os.getppid(), niceness)
            code = isolation.serve(*args)
        finally:
            os.dup2(saved, 1)
            os.dup2(saved_err, 2)
            os.close(saved)
            os.close(saved_err)
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, 0)
        errors.seek(0)
        served_errors = errors.read().decode()
    gc.collect()  # closes serve's copy of the channel
    os.set_blocking(read_end, False)
    try:
        answers = os.read(read_end, 1 << 16).decode()
    except BlockingIOError:
        answers = ""
    os.close(read_end)
    served = Served(code, answers, caps)
    served.errors = served_errors
    return served


def job_lines(tmp_path, jobs, err_names=None) -> Path:
    """One "JOB\tOUT\tERR" line per job; names with spaces (and `err_names` ending in a space or an X) so that
    only a split on tabs and a strip of the newline alone find the files."""
    import pickle

    lines = []
    for i, job in enumerate(jobs):
        (tmp_path / f"job {i}").write_bytes(pickle.dumps(job))
        err = (err_names or {}).get(i, f"err {i}")
        lines.append(f"{tmp_path / f'job {i}'}\t{tmp_path / f'out {i}'}\t{tmp_path / err}\n")
    path = tmp_path / "stdin.txt"
    path.write_text("".join(lines))
    return path


def test_serve_answers_one_code_per_job_and_ends_at_end_of_input(tmp_path, monkeypatch, room_to_nice):
    import pickle

    before = os.nice(0)
    jobs = [Returns(41), Raises(RuntimeError("bug one")), Prints(), Raises(RuntimeError("bug two"))]
    path = job_lines(tmp_path, jobs, err_names={1: "err 1 ", 3: "err 3X"})
    with open(path) as stdin:
        served = serve_here(monkeypatch, stdin, memory_mb=5)
    assert served.code == 0 and served.answers == "0\n1\n0\n1\n"  # the scorer's own fd-1 output is not an answer
    assert served.errors == "77\n"  # it went to stderr
    assert pickle.loads((tmp_path / "out 0").read_bytes()) == 41
    assert pickle.loads((tmp_path / "out 2").read_bytes()) == "printed"
    assert "RuntimeError: bug one" in (tmp_path / "err 1 ").read_text()
    assert "RuntimeError: bug two" in (tmp_path / "err 3X").read_text()
    assert len(served.caps) == 1 and served.caps[0][0] == resource.RLIMIT_AS
    assert served.caps[0][1][0] - 5 * 10**6 > 0
    assert os.nice(0) == before  # no niceness asked: none taken


def test_serve_stops_after_a_memory_error_so_a_fresh_child_takes_the_next_job(tmp_path, monkeypatch):
    path = job_lines(tmp_path, [Raises(MemoryError()), Returns(43)])
    with open(path) as stdin:
        served = serve_here(monkeypatch, stdin)
    assert served.code == 3 and served.answers == "3\n"
    assert not (tmp_path / "out 1").exists()  # the next job was not run on a possibly broken heap


def test_serve_gives_up_before_any_job_when_the_cap_itself_runs_out_of_memory(tmp_path, monkeypatch):
    def no_memory(which, limits):
        raise MemoryError

    path = job_lines(tmp_path, [Returns(41)])
    with open(path) as stdin:
        served = serve_here(monkeypatch, stdin, cap=no_memory)
    assert served.code == 3 and served.answers == "" and not (tmp_path / "out 0").exists()


def test_serve_waits_idle_seconds_for_a_job_then_exits_with_the_idle_code(tmp_path, monkeypatch):
    timeouts = []
    real_select = select.select

    def recording(r, w, x, timeout=None):
        timeouts.append(timeout)
        return real_select(r, w, x, 0.01)  # the wait itself is not waited out

    monkeypatch.setattr(select, "select", recording)
    read_end, write_end = os.pipe()  # a job line never comes
    fired = []

    def close_at_bound():  # a serve that reads anyway sees end of input at the bound instead of hanging
        fired.append(True)
        os.close(write_end)

    bound = threading.Timer(HANG_BOUND_S, close_at_bound)
    bound.start()
    with os.fdopen(read_end) as stdin:
        served = serve_here(monkeypatch, stdin)
    bound.cancel()
    bound.join()
    if not fired:
        os.close(write_end)
    assert served.code == 4 and served.answers == "" and timeouts == [300.0]


def test_serve_lowers_its_priority_by_the_niceness_asked(tmp_path, monkeypatch, room_to_nice):
    before = os.nice(0)
    with open(job_lines(tmp_path, [])) as stdin:
        served = serve_here(monkeypatch, stdin, niceness=2)
    assert served.code == 0 and os.nice(0) == before + 2


def test_forget_spawner_leaves_a_fresh_unlocked_slot(monkeypatch):
    old_lock = threading.Lock()
    old_lock.acquire()  # as if a spawn was under way in the thread the fork did not copy
    monkeypatch.setattr(isolation, "_SPAWNER", object())
    monkeypatch.setattr(isolation, "_SPAWNER_LOCK", old_lock)
    isolation._forget_spawner()
    assert isolation._SPAWNER is None
    assert isolation._SPAWNER_LOCK is not old_lock and isolation._SPAWNER_LOCK.acquire(blocking=False)


# ---- the parent's side, with a real persistent child ----

def test_the_child_runs_with_the_limits_and_priority_asked_and_dies_with_the_spawner(tmp_path, room_to_nice):
    scorer = ScoringProcess(niceness=3)
    try:
        seen = scorer.run(Reports(), Limits(seconds=HANG_BOUND_S, memory_mb=700))
    finally:
        scorer.close()
    assert seen["pid"] != os.getpid() and seen["nice"] == room_to_nice + 3
    assert seen["deathsig"] == signal.SIGKILL
    soft, hard = seen["cap"]
    assert soft == hard and 700 * 10**6 < soft < 700 * 10**6 + 4 * 10**9  # the budget plus the bare interpreter
    assert any(t.name.startswith("isolation-spawner") for t in threading.enumerate())
    plain = ScoringProcess()  # no niceness asked: the child keeps the spawner's
    try:
        assert plain.run(Reports(), Limits(seconds=HANG_BOUND_S))["nice"] == room_to_nice
    finally:
        plain.close()


def test_a_new_memory_limit_or_a_dead_child_gets_a_new_child_else_it_is_reused(scorer):
    first = scorer.run(Reports(), Limits(seconds=HANG_BOUND_S, memory_mb=700))["pid"]
    assert scorer.run(Reports(), Limits(seconds=HANG_BOUND_S, memory_mb=700))["pid"] == first
    second = scorer.run(Reports(), Limits(seconds=HANG_BOUND_S, memory_mb=800))["pid"]
    assert second != first
    os.kill(second, signal.SIGKILL)
    scorer._process.wait(timeout=HANG_BOUND_S)  # reaped: the scorer sees a dead child (the timeout only bounds a hang)
    third = scorer.run(Reports(), Limits(seconds=HANG_BOUND_S, memory_mb=800))["pid"]
    assert third not in (first, second)


def test_the_child_that_ran_out_of_memory_is_replaced(scorer):
    pid = scorer.run(Reports(), Limits(seconds=HANG_BOUND_S))["pid"]
    with pytest.raises(ScoringLimit) as caught:
        scorer.run(Raises(MemoryError()), Limits(seconds=HANG_BOUND_S, memory_mb=1500))
    assert caught.value.kind == "memory"
    assert str(caught.value) == "scoring stopped: it needed more than the 1,500 MB memory limit"
    assert scorer.run(Reports(), Limits(seconds=HANG_BOUND_S, memory_mb=1500))["pid"] != pid


def test_an_oom_killed_child_is_reported_as_killed_with_its_signal_not_as_a_crash(scorer, monkeypatch):
    clock = iter([100.0, 107.4])
    monkeypatch.setattr(isolation, "time", types.SimpleNamespace(monotonic=lambda: next(clock)))
    with pytest.raises(ScoringLimit) as caught:
        scorer.run(KillsItself(), Limits(seconds=HANG_BOUND_S))
    assert caught.value.kind == "killed"
    assert str(caught.value) == ("scoring stopped: the scoring process was killed (signal 9) after 7 s, most likely "
                                 "for using too much memory")


def test_the_time_limit_kills_the_child_and_the_next_job_gets_a_fresh_one(scorer):
    pid = scorer.run(Reports(), Limits(seconds=HANG_BOUND_S))["pid"]
    process = scorer._process
    with pytest.raises(ScoringLimit) as caught:
        scorer.run(Blocks(), Limits(seconds=0.6))
    assert caught.value.kind == "time"
    assert str(caught.value) == "scoring stopped: it ran longer than the 1 s limit"
    assert process.returncode == -signal.SIGKILL and scorer._process is None
    assert scorer.run(Reports(), Limits(seconds=HANG_BOUND_S))["pid"] != pid


def test_a_child_gone_idle_is_replaced_and_the_job_retried_once(scorer, tmp_path):
    assert scorer.run(ExitsOnce(tmp_path / "marker", 4), Limits(seconds=HANG_BOUND_S)) == "second"
    with pytest.raises(ScoringCrash) as caught:
        scorer.run(AlwaysExits(tmp_path / "runs", 4), Limits(seconds=HANG_BOUND_S))
    assert str(caught.value) == "the scoring process exited with code 4"
    assert (tmp_path / "runs").read_text() == "run\nrun\n"  # retried once, not more


def test_a_child_that_died_on_the_job_is_not_retried(scorer, tmp_path):
    with pytest.raises(ScoringCrash) as caught:
        scorer.run(AlwaysExits(tmp_path / "runs", 6), Limits(seconds=HANG_BOUND_S))
    assert str(caught.value) == "the scoring process exited with code 6"
    assert (tmp_path / "runs").read_text() == "run\n"
    assert scorer._process is None


def test_the_result_comes_back_in_the_highest_pickle_protocol(scorer):
    assert scorer.run(MakesProbe(), Limits(seconds=HANG_BOUND_S)) == pickle_highest()
    assert scorer.run(SaysItsProtocol(), Limits(seconds=HANG_BOUND_S)) == pickle_highest()  # and the job goes out in it
    assert forked(lambda: ProtocolProbe()) == pickle_highest()


def pickle_highest() -> int:
    import pickle

    return pickle.HIGHEST_PROTOCOL


def test_a_crash_carries_the_childs_traceback(scorer):
    with pytest.raises(ScoringCrash) as caught:
        scorer.run(Raises(RuntimeError("scorer bug 4711")), Limits(seconds=HANG_BOUND_S))
    assert str(caught.value).startswith("Traceback (most recent call last):")
    assert str(caught.value).endswith("RuntimeError: scorer bug 4711\n")


class BrokenStdin:
    """The child closed its end: the write fails as it would on a dead child's pipe."""

    def __init__(self, real):
        self.real = real

    def write(self, line):
        self.real.close()  # the child reads EOF and exits with 5
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self):
        pass


def test_a_broken_pipe_reads_the_childs_exit_code(scorer):
    process = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read(); sys.exit(5)"],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    process.stdin = BrokenStdin(process.stdin)
    scorer._process, scorer._memory_mb = process, scorer._memory_mb_wanted
    assert scorer._memory_mb_wanted == 4000
    assert scorer._ask("job\tout\terr\n", HANG_BOUND_S) == 5
    assert scorer._process is None


def test_close_kills_and_reaps_the_child(scorer):
    scorer.run(Returns(1), Limits(seconds=HANG_BOUND_S))
    process = scorer._process
    scorer.close()
    assert process.returncode == -signal.SIGKILL and scorer._process is None
    scorer.close()  # nothing left: no error


def test_close_when_idle_closes_now_or_after_the_running_job(scorer):
    scorer.run(Returns(1), Limits(seconds=HANG_BOUND_S))
    process = scorer._process
    scorer.close_when_idle()  # idle: closed at once, the lock left free
    assert process.returncode == -signal.SIGKILL and not scorer._lock.locked() and not scorer._close_after
    scorer.run(Returns(1), Limits(seconds=HANG_BOUND_S))
    process = scorer._process
    held, release = threading.Event(), threading.Event()

    def running_job():  # another thread holds the lock, as a running job does; lets go when told (or at the bound)
        with scorer._lock:
            held.set()
            release.wait(HANG_BOUND_S)

    job = threading.Thread(target=running_job)
    job.start()
    assert held.wait(HANG_BOUND_S)
    scorer.close_when_idle()  # must not wait for the job (a blocking call would return only at the bound)
    closed_at_once = scorer._close_after is True and process.poll() is None  # not cut short
    release.set()
    job.join()
    assert closed_at_once
    assert scorer.run(Returns(2), Limits(seconds=HANG_BOUND_S)) == 2  # the running job ends...
    assert process.returncode == -signal.SIGKILL and scorer._process is None and scorer._close_after is False
    assert scorer.run(Returns(3), Limits(seconds=HANG_BOUND_S)) == 3  # ...and only that one closes it
    assert scorer._process is not None


def test_a_scoring_process_that_goes_away_takes_its_child_with_it():
    scorer = ScoringProcess()
    scorer.run(Returns(1), Limits(seconds=HANG_BOUND_S))
    process = scorer._process
    del scorer
    gc.collect()
    assert process.returncode == -signal.SIGKILL


# ---- the forked path (a job that cannot be pickled) ----

def forked(fn, **limits):
    return ScoringProcess().run(Unpicklable(fn), Limits(**{"seconds": HANG_BOUND_S, **limits}))


def test_forked_job_runs_in_another_process_with_the_caps(no_death_signal):
    assert forked(lambda: InDaemon().run()) is True  # a daemon: it never outlives the parent's exit
    seen = forked(lambda: Reports().run(), memory_mb=700)
    assert seen["pid"] != os.getpid() and seen["deathsig"] == signal.SIGKILL
    soft, hard = seen["cap"]
    assert soft == hard and 700 * 10**6 < soft < 700 * 10**6 + 4 * 10**9


def test_forked_limits_and_failures_end_in_the_same_verdicts(tmp_path, monkeypatch, ascii_locale):
    with pytest.raises(ScoringLimit) as caught:
        forked(lambda: (_ for _ in ()).throw(MemoryError()), memory_mb=1500)
    assert (caught.value.kind, str(caught.value)) == ("memory", "scoring stopped: it needed more than the 1,500 MB "
                                                                "memory limit")
    with pytest.raises(ScoringLimit) as caught:
        forked(lambda: time.sleep(HANG_BOUND_S), seconds=0.6)
    assert (caught.value.kind, str(caught.value)) == ("time", "scoring stopped: it ran longer than the 1 s limit")
    with pytest.raises(ScoringLimit) as caught:
        forked(lambda: os.kill(os.getpid(), signal.SIGKILL))
    assert caught.value.kind == "killed" and "(signal 9)" in str(caught.value)
    with pytest.raises(ScoringCrash) as caught:
        forked(lambda: os._exit(0))  # exit 0 without a result is a crash, not an answer
    assert str(caught.value) == "the scoring process exited with code 0"
    with pytest.raises(ScoringCrash) as caught:
        forked(lambda: (_ for _ in ()).throw(RuntimeError("bug " + "z" * 9000)))
    assert len(str(caught.value)) == 8000 and str(caught.value).endswith("z" * 100 + "\n")
    with pytest.raises(ScoringCrash) as caught:  # written as UTF-8 whatever the locale
        forked(lambda: (_ for _ in ()).throw(RuntimeError("Grenzwert überschritten")))
    assert str(caught.value).startswith("Traceback") and str(caught.value).endswith("überschritten\n")


def test_forked_child_whose_cap_runs_out_of_memory_reports_memory(monkeypatch):
    def no_memory(which, limits):
        raise MemoryError

    monkeypatch.setattr(resource, "setrlimit", no_memory)
    with pytest.raises(ScoringLimit) as caught:
        forked(lambda: 1)
    assert caught.value.kind == "memory"


# ---- the job itself ----

def test_score_job_scores_with_the_model_keeps_per_item_and_uses_the_kept_validation(tmp_path, tiny_built):
    from leaderboard.intake.validated_upload import keep
    from leaderboard.scoring.score_file import load_key, resolve, score_file
    from test_service import PREDICTIONS, context, upload

    asked = []

    def recording(benchmark=None):
        asked.append(benchmark)
        return context(benchmark)

    predictions = upload(tmp_path, PREDICTIONS)
    direct = ScoreJob("medreamm", predictions, tiny_built, {"name": "Model K"}, recording).run()
    assert direct.model.name == "Model K" and direct.per_item and asked == ["medreamm"]
    report, _ = score_file("medreamm", predictions, tiny_built, context())
    keep(report, tmp_path / "kept")
    kept = ScoreJob("medreamm", tmp_path / "absent.jsonl", tiny_built, {"name": "Model K"}, context,
                    validated=tmp_path / "kept").run()  # the upload is not read again
    assert kept.model.name == "Model K" and kept.per_item == direct.per_item
    key = load_key(resolve("medreamm"), tiny_built)  # the parent's cached key: the child does not load it again
    keyed = ScoreJob("medreamm", predictions, tmp_path / "no-key-here", {"name": "Model K"}, context, key=key).run()
    assert keyed.per_item == direct.per_item


def test_each_job_gets_its_own_named_scratch_folder_removed_after(scorer, monkeypatch):
    lines = []
    real_ask = scorer._ask
    monkeypatch.setattr(scorer, "_ask", lambda line, seconds: lines.append(line) or real_ask(line, seconds))
    assert scorer.run(Returns(5), Limits(seconds=HANG_BOUND_S)) == 5
    job, out, err = lines[0].rstrip("\n").split("\t")
    folder = Path(job).parent
    assert folder.name.startswith("leaderboard-score-") and folder.parent == Path(tempfile.gettempdir())
    assert (job, out, err) == (str(folder / "job.pickle"), str(folder / "result.pickle"), str(folder / "error.txt"))
    assert not folder.exists()  # nothing left behind

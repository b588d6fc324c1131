"""Judge client throughput against a judge that is not the bottleneck (bench/fake_judge_pool.py: several
worker processes, asyncio, `--latency` per answer). For each concurrency, interleaved `--repeats` times:

  ideal    concurrency / latency calls per second
  peer     bare asyncio sockets: the same POSTs over `concurrency` kept-alive connections, no cache, no
           parsing beyond the JSON (what a Python client on this machine can do at all)
  project  Judge.run on `--calls` distinct criteria with a fresh disk cache (keys, single flight,
           retries, parsing, batched cache writes)

Prints medians of calls/s, % of ideal, project/peer, and the client process's CPU seconds per call
(resource.getrusage: robust to other jobs on the machine, unlike calls/s), then whether the target
(>= 80% of ideal at every concurrency) is met.

    .venv/bin/python bench/judge_throughput.py [--concurrency 64 128] [--latency 0.05] [--calls 4000] [--workers 3]
"""
from __future__ import annotations

import argparse
import asyncio
import os
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from fake_judge_pool import FakeJudgePool  # noqa: E402

PROMPT = "Grade one criterion.\n=== USER ===\nDialogue:\n{dialogue}\nCriterion: {criterion}\nReply:\n{candidate}\n"


def cpu_seconds() -> float:
    """User + system CPU of this process (every thread: the judge's loop thread included)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def responder(body: dict) -> str:
    text = body["messages"][1]["content"]
    return '{"met": %s, "rationale": "ok"}' % ("true" if len(text) % 3 else "false")


def project_rate(base_url: str, concurrency: int, n: int, work: Path, run: int) -> tuple[float, float]:
    from leaderboard.scoring.judge import Judge, JudgeCall, JudgeConfig, load_prompt, parse_json_object

    prompt = load_prompt("bench", folder=work)
    cache = work / f"cache-{concurrency}-{run}.sqlite"
    judge = Judge(JudgeConfig(base_url=base_url, model="fake-judge", concurrency=concurrency, cache_path=cache,
                              timeout=60))
    dialogue = "[1] patient: itchy red rash on both arms for two days, worse at night. " * 4
    calls = [JudgeCall(f"c{i}", prompt, {"dialogue": dialogue, "criterion": f"criterion {run}-{i}",
                                         "candidate": "Likely eczema; use an emollient and a mild steroid cream."})
             for i in range(n)]
    start, cpu = time.perf_counter(), cpu_seconds()
    verdicts = judge.run(calls, parse_json_object)
    seconds, cpu = time.perf_counter() - start, cpu_seconds() - cpu
    judge.close()
    assert all(v.ok for v in verdicts) and judge.stats.http_calls == n, judge.stats
    return n / seconds, cpu / n


def peer_rate(base_url: str, concurrency: int, n: int, run: int) -> tuple[float, float]:
    """Bare asyncio: `concurrency` kept-alive connections, each POSTing and reading its answers in turn
    (no HTTP library: the floor of what any Python client can do here)."""
    import json
    from urllib.parse import urlsplit

    url = urlsplit(base_url)
    path = url.path.rstrip("/") + "/chat/completions"

    async def worker(next_index: list[int]) -> None:
        reader, writer = await asyncio.open_connection(url.hostname, url.port)
        while next_index[0] < n:
            i = next_index[0]
            next_index[0] += 1
            body = json.dumps({"model": "fake-judge", "temperature": 0, "messages": [
                {"role": "system", "content": "Grade one criterion."},
                {"role": "user", "content": f"criterion peer {run}-{i}"}]}).encode()
            writer.write(f"POST {path} HTTP/1.1\r\nHost: {url.netloc}\r\nContent-Type: application/json\r\n"
                         f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
            head = await reader.readuntil(b"\r\n\r\n")
            length = int(head.lower().split(b"content-length:")[1].split(b"\r\n")[0])
            json.loads(await reader.readexactly(length))["choices"][0]["message"]["content"]
        writer.close()

    async def main() -> tuple[float, float]:
        next_index = [0]
        start, cpu = time.perf_counter(), cpu_seconds()
        await asyncio.gather(*(worker(next_index) for _ in range(concurrency)))
        return n / (time.perf_counter() - start), (cpu_seconds() - cpu) / n

    return asyncio.run(main())


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--concurrency", type=int, nargs="+", default=[64, 128])
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--calls", type=int, default=4000)
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--skip-peer", action="store_true")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="judge-throughput-"))
    (work / "bench.v1.txt").write_text(PROMPT)
    rows = []
    try:
        with FakeJudgePool(responder, workers=args.workers, latency=args.latency) as server:
            # warm up both clients: workers accepting, imports done (aiohttp's import and TLS context are a
            # one-time ~0.2 s of start-up, not CPU per call)
            peer_rate(server.base_url, 8, 200, -1)
            project_rate(server.base_url, 8, 200, work, -1)
            for c in args.concurrency:
                n = max(args.calls, int(4 * c / args.latency))
                peers, projects, in_flight, server_cpu = [], [], [], []
                for r in range(args.repeats):
                    server.reset()
                    peers.append((float("nan"),) * 2 if args.skip_peer else peer_rate(server.base_url, c, n, r))
                    server.reset()
                    before = server.cpu_seconds()
                    projects.append(project_rate(server.base_url, c, n, work, r))
                    server_cpu.append((server.cpu_seconds() - before) / n)
                    in_flight.append(server.max_in_flight())
                rows.append((c, n, statistics.median(p[0] for p in peers), statistics.median(p[0] for p in projects),
                             statistics.median(p[1] for p in peers), statistics.median(p[1] for p in projects),
                             max(in_flight), statistics.median(server_cpu)))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"fake judge: {args.workers} worker processes, {args.latency * 1000:.0f} ms per answer; medians of "
          f"{args.repeats} interleaved runs")
    print(f"{'concurrency':>11} {'calls':>6} {'ideal/s':>8} {'peer/s':>8} {'project/s':>10} {'% ideal':>8} "
          f"{'project/peer':>12} {'CPU ms/call project':>19} {'peer':>5} {'ratio':>6} {'max in flight':>13}")
    met = True
    for c, n, peer, project, peer_cpu, project_cpu, flight, _ in rows:
        ideal = c / args.latency
        met &= project >= 0.8 * ideal
        print(f"{c:>11} {n:>6} {ideal:>8.0f} {peer:>8.0f} {project:>10.0f} {100 * project / ideal:>7.0f}% "
              f"{project / peer:>12.2f} {1000 * project_cpu:>19.3f} {1000 * peer_cpu:>5.3f} {project_cpu / peer_cpu:>5.1f}x "
              f"{flight:>13}")
    # what this machine allows: the client and the fake judge's workers share os.cpu_count() cores, so the
    # rate is bounded by cores / (client + server CPU per call), whatever the latency allows
    cores = os.cpu_count()
    print(f"{'concurrency':>11} {'server CPU ms/call':>18} {'cores used: project':>19} {'peer':>5} "
          f"{'machine allows/s':>16} {'% ideal':>8} {'project % of that':>17}")
    for c, n, peer, project, peer_cpu, project_cpu, flight, server_cpu in rows:
        ideal = c / args.latency
        allows = min(ideal, cores / (project_cpu + server_cpu))
        print(f"{c:>11} {1000 * server_cpu:>18.3f} {project_cpu * project:>19.2f} {peer_cpu * peer:>5.2f} "
              f"{allows:>16.0f} {100 * allows / ideal:>7.0f}% {100 * project / allows:>16.0f}%")
    try:
        import uvloop  # noqa: F401
        loop = "uvloop"
    except ImportError:
        loop = "asyncio's selector loop (uvloop not installed)"
    print(f"judge transport event loop: {loop}")
    load = os.getloadavg()[0]
    print(f"target (>= 80% of ideal at concurrency {', '.join(map(str, args.concurrency))}): "
          f"{'met' if met else 'not met'} (load average {load:.1f} on {os.cpu_count()} cores)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

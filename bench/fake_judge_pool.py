"""An OpenAI-compatible chat server for load benches that is not the bottleneck: several worker
processes share one listening socket, each serving its connections with asyncio (keep-alive, no thread
per request), answering `POST .../chat/completions` after `latency` seconds with `responder(body)`.

tests/fake_openai_server.py (one process, a thread per connection, scriptable faults) stays the server
of the protocol tests; this one only has to be fast. Calls and the largest number in flight are counted
across the workers in shared memory.

    with FakeJudgePool(responder, workers=3, latency=0.05) as server:
        ... server.base_url, server.calls(), server.max_in_flight()
"""
from __future__ import annotations

import asyncio
import json
import multiprocessing as mp
import os
import signal
import socket
import sys
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from fake_openai_server import ground  # noqa: E402  (the protocol tests' grounding, one definition)


class FakeJudgePool:
    def __init__(self, responder: Callable[[dict], str], workers: int = 3, latency: float = 0.05,
                 model: str = "fake-judge"):
        self.responder, self.workers, self.latency, self.model = responder, workers, latency, model
        ctx = mp.get_context("fork")  # the responder need not be importable by name
        self._calls = ctx.Value("q", 0)
        self._in_flight = ctx.Value("i", 0)
        self._max_in_flight = ctx.Value("i", 0)
        self._ctx = ctx
        self._procs: list = []
        self._sock: socket.socket | None = None

    @property
    def base_url(self) -> str:
        host, port = self._sock.getsockname()[:2]
        return f"http://{host}:{port}/v1"

    def calls(self) -> int:
        return self._calls.value

    def max_in_flight(self) -> int:
        return self._max_in_flight.value

    def cpu_seconds(self) -> float:
        """User + system CPU of the worker processes so far (Linux /proc; NaN elsewhere)."""
        ticks = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
        total = 0.0
        for proc in self._procs:
            try:
                fields = open(f"/proc/{proc.pid}/stat").read().rsplit(")", 1)[1].split()
            except OSError:
                return float("nan")
            total += (int(fields[11]) + int(fields[12])) / ticks  # utime, stime
        return total

    def reset(self) -> None:
        with self._calls.get_lock():
            self._calls.value = 0
        with self._max_in_flight.get_lock():
            self._max_in_flight.value = 0

    def start(self) -> "FakeJudgePool":
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(1024)
        self._sock.setblocking(False)
        for _ in range(self.workers):
            proc = self._ctx.Process(target=self._serve, daemon=True)
            proc.start()
            self._procs.append(proc)
        return self

    def stop(self) -> None:
        for proc in self._procs:
            if proc.is_alive():
                os.kill(proc.pid, signal.SIGTERM)
            proc.join(timeout=5)
        self._procs = []
        if self._sock is not None:
            self._sock.close()

    def __enter__(self) -> "FakeJudgePool":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # ------------------------------------------------------------------ worker process
    def _serve(self) -> None:
        signal.signal(signal.SIGTERM, lambda *a: os._exit(0))
        asyncio.run(self._main())

    async def _main(self) -> None:
        server = await asyncio.start_server(self._connection, sock=self._sock, backlog=1024)
        async with server:
            await server.serve_forever()

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n")[1:]:
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value.strip())
                body = json.loads(await reader.readexactly(length)) if length else {}
                self._enter()
                try:
                    await asyncio.sleep(self.latency)
                    text = ground(self.responder(body), body)  # canary, criterion id, evidence: as a compliant judge
                finally:
                    with self._in_flight.get_lock():
                        self._in_flight.value -= 1
                payload = json.dumps({
                    "id": "chatcmpl-bench", "object": "chat.completion", "created": 0,
                    "model": body.get("model", self.model),
                    "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
                    "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}).encode()
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                             + str(len(payload)).encode() + b"\r\n\r\n" + payload)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError):
            pass
        finally:
            writer.close()

    def _enter(self) -> None:
        with self._calls.get_lock():
            self._calls.value += 1
        with self._in_flight.get_lock():
            self._in_flight.value += 1
            now = self._in_flight.value
        if now > self._max_in_flight.value:
            with self._max_in_flight.get_lock():
                self._max_in_flight.value = max(self._max_in_flight.value, now)

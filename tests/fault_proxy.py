"""An HTTP proxy on 127.0.0.1 in front of the fake Hub that injects the faults a real Hub shows, at a set rate
with a fixed seed (tests and bench/hub_faults.py point workers or the Space at `proxy.url`):

- "500":      answers 500 without passing the request on;
- "lost_ack": passes a write (POST) on, lets the Hub apply it, then answers 500 (the client cannot tell);
- "delay":    holds the request `delay` seconds, then passes it on (past a client's timeout: a timeout);
- "404":      answers 404 EntryNotFound to a file download (an upload not pushed yet).

`rate` applies to every request matched by `tokens` (bearer tokens; None: everyone) and by `only(method, path)`
(None: every request). `force(kind, test)` queues a scripted fault: the next request for which `test(method,
path)` is true fails that way, whatever the rate; scripted faults fire in the order they were queued.
`injected` counts what was done.
"""
from __future__ import annotations

import http.client
import json
import random
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

KINDS = ("500", "lost_ack", "delay", "404")
HOP_HEADERS = {"connection", "keep-alive", "transfer-encoding", "proxy-connection", "upgrade"}


def is_download(method: str, path: str) -> bool:
    return method in ("GET", "HEAD") and "/resolve/" in path and not path.startswith("/api/")


def is_commit(method: str, path: str) -> bool:
    return method == "POST" and "/commit/" in path


class FaultProxy:
    def __init__(self, target: str, rate: float = 0.0, seed: int = 0, kinds=KINDS, delay: float = 0.05,
                 tokens: set[str] | None = None, only=None):
        self.target = urlsplit(target)
        self.rate, self.kinds, self.delay, self.tokens, self.only = rate, tuple(kinds), delay, tokens, only
        self.rng = random.Random(seed)
        self.lock = threading.Lock()
        self.forced: list[tuple[str, object]] = []
        self.injected: Counter = Counter()
        self.requests = 0
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> "FaultProxy":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()

    def force(self, kind: str, test) -> None:
        with self.lock:
            self.forced.append((kind, test))

    def choose(self, method: str, path: str, token: str | None) -> str | None:
        """The fault for this request, or None to pass it on untouched."""
        with self.lock:
            self.requests += 1
            if self.forced and self.forced[0][1](method, path):  # in order: each is armed once the one before fired
                return self.forced.pop(0)[0]
            if self.tokens is not None and token not in self.tokens:
                return None
            if self.only is not None and not self.only(method, path):
                return None
            if self.rng.random() >= self.rate:
                return None
            fitting = [k for k in self.kinds if (k != "lost_ack" or method == "POST")
                       and (k != "404" or is_download(method, path))]
            return self.rng.choice(fitting) if fitting else None


def _handler(proxy: FaultProxy):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # headers and body go out in two writes: no 40 ms wait for an ACK

        def log_message(self, *args):  # quiet
            pass

        def _reply(self, status: int, body: bytes, headers: list[tuple[str, str]]) -> None:
            self.send_response(status)
            for name, value in headers:
                if name.lower() not in HOP_HEADERS and name.lower() != "content-length":
                    self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def _fail(self, status: int, message: str, code: str | None = None) -> None:
            headers = [("Content-Type", "application/json"), ("X-Error-Message", message)]
            if code:
                headers.append(("X-Error-Code", code))
            self._reply(status, json.dumps({"error": message}).encode(), headers)

        def _forward(self, body: bytes) -> tuple[int, bytes, list[tuple[str, str]]]:
            connection = http.client.HTTPConnection(proxy.target.hostname, proxy.target.port, timeout=120)
            try:
                headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_HEADERS}
                connection.request(self.command, self.path, body=body or None, headers=headers)
                response = connection.getresponse()
                return response.status, response.read(), response.getheaders()
            finally:
                connection.close()

        def _handle(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            auth = self.headers.get("Authorization", "")
            kind = proxy.choose(self.command, self.path, auth[7:] if auth.startswith("Bearer ") else None)
            if kind is not None:
                with proxy.lock:
                    proxy.injected[kind] += 1
            if kind == "500":
                return self._fail(500, "injected fault")
            if kind == "404":
                return self._fail(404, "Entry not found", "EntryNotFound")
            if kind == "delay":
                time.sleep(proxy.delay)
            status, data, headers = self._forward(body)
            if kind == "lost_ack":
                return self._fail(500, "injected fault after the request was applied")
            self._reply(status, data, headers)

        do_GET = do_POST = do_HEAD = do_DELETE = do_PUT = _handle

    return Handler

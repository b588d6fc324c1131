"""A scriptable OpenAI-compatible chat server on 127.0.0.1 for judge and `predict` tests.

`POST /v1/chat/completions` (also `/chat/completions`) answers from `responder(request_json) -> str`
(the assistant text), or from the `script` queue first: each entry is an int HTTP status (429, 500...),
the string "timeout" (sleeps past the client's timeout), "truncated" (a cut-off JSON body) or a
string to send as the assistant text. Every request is recorded (JSON body and headers) in
`requests`; `delay` adds latency to every answer; `max_in_flight` records the concurrency seen.
"""
from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable


class FakeOpenAIServer:
    def __init__(self, responder: Callable[[dict], str] | None = None, model: str = "fake-judge"):
        self.responder = responder or (lambda body: "{}")
        self.model = model
        self.script: list[Any] = []
        self.requests: list[dict] = []
        self.headers: list[dict] = []
        self.delay = 0.0
        self.timeout_sleep = 3.0
        self.lock = threading.Lock()
        self.in_flight = 0
        self.max_in_flight = 0
        self._httpd: ThreadingHTTPServer | None = None

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def calls(self) -> int:
        with self.lock:
            return len(self.requests)

    def start(self) -> "FakeOpenAIServer":
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):  # keep test output clean
                pass

            def do_GET(self):
                if self.path.rstrip("/").endswith("/models"):
                    self._send(200, {"object": "list", "data": [{"id": server.model, "object": "model"}]})
                else:
                    self._send(404, {"error": {"message": "not found"}})

            def do_POST(self):
                length = int(self.headers.get("Content-Length", "0"))
                raw = self.rfile.read(length)
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self._send(404, {"error": {"message": "not found"}})
                    return
                try:
                    body = json.loads(raw)
                except ValueError:
                    self._send(400, {"error": {"message": "invalid JSON"}})
                    return
                with server.lock:
                    server.requests.append(body)
                    server.headers.append({k.lower(): v for k, v in self.headers.items()})
                    step = server.script.pop(0) if server.script else None
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                try:
                    if server.delay:
                        time.sleep(server.delay)
                    if isinstance(step, int):
                        self._send(step, {"error": {"message": f"scripted {step}"}})
                        return
                    if step == "timeout":
                        time.sleep(server.timeout_sleep)
                        self._send(500, {"error": {"message": "late"}})
                        return
                    if isinstance(step, bytes):  # a whole raw response (status line, headers, body) as given
                        self.wfile.write(step)
                        self.close_connection = True
                        return
                    if step == "truncated":
                        self._send_raw(200, b'{"id": "x", "choices": [{"message": {"content": "{\\"sco')
                        return
                    text = step if isinstance(step, str) else server.responder(body)
                    self._send(200, {
                        "id": f"chatcmpl-{len(server.requests)}", "object": "chat.completion", "created": 0,
                        "model": body.get("model", server.model),
                        "choices": [{"index": 0, "finish_reason": "stop",
                                     "message": {"role": "assistant", "content": text}}],
                        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
                    })
                finally:
                    with server.lock:
                        server.in_flight -= 1

            def _send(self, status: int, payload: dict) -> None:
                self._send_raw(status, json.dumps(payload).encode())

            def _send_raw(self, status: int, data: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                # headers and body in one write: two small writes meet Nagle + delayed ACK (~40 ms each)
                self._headers_buffer.append(b"\r\n" + data)
                try:
                    self.flush_headers()
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()

    def __enter__(self) -> "FakeOpenAIServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

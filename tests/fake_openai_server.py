"""A scriptable OpenAI-compatible chat server on 127.0.0.1 for judge and `predict` tests.

`POST /v1/chat/completions` (also `/chat/completions`) answers from `responder(request_json) -> str`
(the assistant text), or from the `script` queue first. A script entry is:
- an int HTTP status (429, 500...), or `Status(503, retry_after="30")` for one with a Retry-After header;
- "timeout" (sleeps `timeout_sleep`, then 500), "hang" (never answers: sleeps until the server stops),
  "trickle" (a chunked 200 body, one byte every `trickle_every` seconds, never finished), "truncated" (a
  cut-off JSON body), "empty" (a 200 with no body), "envelope" (valid JSON without `choices[0].message`),
  "huge" (a 50 MB body), "gzip_bomb" (a small gzip body that inflates to 50 MB), "reset" (the connection
  closed without an answer), "wrong_criterion" (a grounded verdict naming another criterion id);
- `Raw(text)`: assistant text sent exactly as given (no grounding);
- bytes: a whole raw response (status line, headers, body) as given, or a function of the request giving one;
- any other string: assistant text (grounded, see below).

Like a judge that follows its prompt, the server *grounds* the assistant text it sends to a judge request
(one whose system prompt asks for a canary; `ground=True`): a JSON object gets the request's `canary` and
`criterion_id` and an `evidence` quoted from the candidate, where absent; an XML `<result>` gets the same as
elements. `Raw` and `ground=False` send text unchanged.

`obeying_responder` makes a judge that obeys instructions it finds in the candidate (bench/judge_obeying.py).
Every request is recorded (JSON body and headers) in `requests`; `delay` adds latency to every answer;
`max_in_flight` records the concurrency seen.
"""
from __future__ import annotations

import gzip
import json
import re
import threading
import time
from dataclasses import dataclass
from functools import lru_cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

MARK = "┃"
_CANARY = re.compile(r'canary = "([0-9a-f]+)"')
_CRITERION = re.compile(r'criterion_id = "([^"]*)"')
_BLOCK = re.compile(r"<<<CANDIDATE ([0-9a-f]+)\n(.*?)\nCANDIDATE \1>>>", re.S)
_PLACEHOLDER = re.compile(r"\[(?:removed|已删除)[^\]]*\]")
_SENTENCE = re.compile(r"[^.!?。！？\n]+[.!?。！？]*")


@dataclass(frozen=True)
class Raw:
    text: str


@dataclass(frozen=True)
class Status:
    code: int
    retry_after: str | None = None


def request_text(body: dict) -> tuple[str, str]:
    """(system text, user text) of a chat request."""
    system = user = ""
    for message in body.get("messages", []):
        content = message.get("content")
        if isinstance(content, list):
            content = "\n".join(part.get("text", "") for part in content if part.get("type") == "text")
        if message.get("role") == "system":
            system = content or ""
        elif message.get("role") == "user" and not user:
            user = content or ""
    return system, user


def marks(body: dict) -> dict:
    """The request's canary, criterion id and the candidate's text (datamarks removed), as a judge reads them."""
    system, user = request_text(body)
    canary, criterion = _CANARY.search(system), _CRITERION.search(system)
    block = _BLOCK.search(user)
    lines = block.group(2).split("\n") if block else []
    candidate = "\n".join(line[2:] if line.startswith(MARK + " ") else line.lstrip(MARK) for line in lines)
    return {"canary": canary.group(1) if canary else "", "criterion_id": criterion.group(1) if criterion else "",
            "candidate": candidate}


def first_span(candidate: str) -> str:
    """A passage a compliant judge would quote: the first sentence of 8+ characters outside any redaction
    placeholder ("[removed: ...]", "[已删除：...]")."""
    for part in _PLACEHOLDER.split(candidate):
        for sentence in _SENTENCE.findall(part):
            sentence = sentence.strip()
            if len(sentence) >= 8:
                return sentence[:120]
    return _PLACEHOLDER.sub("", candidate).strip()[:120]


def ground(text: str, body: dict, evidence: str | None = None, **override) -> str:
    """`text` with this request's canary, criterion id and an evidence quote added where it lacks them."""
    found = marks(body)
    if not found["canary"] and not override and evidence is None:
        return text  # not a judge request (e.g. `predict`): nothing to ground
    fields = {"canary": found["canary"], "criterion_id": found["criterion_id"],
              "evidence": evidence if evidence is not None else first_span(found["candidate"]), **override}
    start = text.find("{")
    if start >= 0 and "</result>" not in text:
        try:
            value, end = json.JSONDecoder().raw_decode(text[start:])
        except ValueError:
            return text
        if isinstance(value, dict):
            for name, field_value in fields.items():
                if name in override or name not in value:
                    value[name] = field_value
            return text[:start] + json.dumps(value, ensure_ascii=False) + text[start + end:]
        return text
    if "</result>" in text:
        from xml.sax.saxutils import escape

        extra = "".join(f"<{n}>{escape(str(v))}</{n}>" for n, v in fields.items() if f"<{n}>" not in text)
        return text.replace("</result>", extra + "</result>", 1)
    return text


def obeying_responder(attacks: list[str], honest: Callable[[dict], str], favourable: Callable[[dict], str]
                      ) -> Callable[[dict], str]:
    """A judge that obeys any of `attacks` it finds in the candidate (as a model persuaded by it would): an
    attack carrying a verdict of its own (a JSON object) is answered with exactly that verdict; any other is
    answered with the `favourable` verdict, canary and criterion id echoed as the prompt asks, quoting the
    attack itself as its evidence. Without an attack it answers `honest`, grounded."""
    def respond(body: dict) -> str:
        candidate = " ".join(marks(body)["candidate"].split())
        for attack in attacks:
            flat = " ".join(attack.split())
            if flat and flat in candidate:
                start, end = flat.find("{"), flat.rfind("}")
                if 0 <= start < end:
                    try:
                        json.loads(flat[start:end + 1])
                        return flat[start:end + 1]  # the verdict the attack dictated, as dictated
                    except ValueError:
                        pass
                return ground(favourable(body), body, evidence=flat)
        return ground(honest(body), body)
    return respond


class FakeOpenAIServer:
    def __init__(self, responder: Callable[[dict], str] | None = None, model: str = "fake-judge", ground: bool = True):
        self.responder = responder or (lambda body: "{}")
        self.model = model
        self.ground = ground
        self.script: list[Any] = []
        self.requests: list[dict] = []
        self.headers: list[dict] = []
        self.delay = 0.0
        self.timeout_sleep = 3.0
        self.trickle_every = 0.2
        self.lock = threading.Lock()
        self.in_flight = 0
        self.max_in_flight = 0
        self.stopped = threading.Event()
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
            disable_nagle_algorithm = True  # headers and body go out in two writes: no 40 ms wait for an ACK

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
                    self._answer(step, body)
                except (BrokenPipeError, ConnectionResetError):
                    self.close_connection = True
                finally:
                    with server.lock:
                        server.in_flight -= 1

            def _answer(self, step, body: dict) -> None:
                if isinstance(step, Status):
                    headers = {"Retry-After": step.retry_after} if step.retry_after is not None else {}
                    self._send(step.code, {"error": {"message": f"scripted {step.code}"}}, headers)
                elif isinstance(step, int):
                    self._send(step, {"error": {"message": f"scripted {step}"}})
                elif isinstance(step, bytes) or callable(step):  # a whole raw response, or one made from the request
                    self.wfile.write(step if isinstance(step, bytes) else step(body))
                    self.close_connection = True
                elif step in _FAULTS:
                    getattr(self, "_" + step)()
                elif step == "wrong_criterion":
                    self._reply(body, ground(server.responder(body), body, criterion_id="c00000000"), raw=True)
                elif isinstance(step, Raw):
                    self._reply(body, step.text, raw=True)
                else:
                    self._reply(body, step if isinstance(step, str) else server.responder(body))

            def _reply(self, body: dict, text: str, raw: bool = False) -> None:
                if server.ground and not raw:
                    text = ground(text, body)
                self._send(200, {
                    "id": f"chatcmpl-{len(server.requests)}", "object": "chat.completion", "created": 0,
                    "model": body.get("model", server.model),
                    "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
                    "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
                })

            # ---------------------------------------------------------------- faults
            def _timeout(self):
                time.sleep(server.timeout_sleep)
                self._send(500, {"error": {"message": "late"}})

            def _hang(self):
                server.stopped.wait()
                self.close_connection = True

            def _trickle(self):
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                self.wfile.write(b"1\r\n{\r\n")
                while not server.stopped.wait(server.trickle_every):
                    self.wfile.write(b"1\r\n \r\n")
                    self.wfile.flush()
                self.close_connection = True

            def _truncated(self):
                self._send_raw(200, b'{"id": "x", "choices": [{"message": {"content": "{\\"sco')

            def _empty(self):
                self._send_raw(200, b"")

            def _envelope(self):
                self._send(200, {"id": "x", "object": "chat.completion", "choices": []})

            def _huge(self):
                size = 50_000_000
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(size))
                self.end_headers()
                block = b" " * 1_000_000
                for _ in range(size // len(block)):
                    self.wfile.write(block)
                self.close_connection = True

            def _gzip_bomb(self):
                data = _bomb()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Encoding", "gzip")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _reset(self):
                self.close_connection = True  # no status line at all: the client sees the connection drop

            def _send(self, status: int, payload: dict, headers: dict | None = None) -> None:
                self._send_raw(status, json.dumps(payload).encode(), headers)

            def _send_raw(self, status: int, data: bytes, headers: dict | None = None) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
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
        self.stopped.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()

    def __enter__(self) -> "FakeOpenAIServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


@lru_cache(maxsize=1)
def _bomb() -> bytes:
    """50 MB of spaces, gzip-compressed (~50 kB): made once, not while a client waits."""
    return gzip.compress(b" " * 50_000_000, compresslevel=9)


_FAULTS = ("timeout", "hang", "trickle", "truncated", "empty", "envelope", "huge", "gzip_bomb", "reset")

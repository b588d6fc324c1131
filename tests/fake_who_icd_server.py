"""A scriptable stand-in for the WHO ICD-API (autocode, flexisearch, OAuth token).

Runs a real ``ThreadingHTTPServer`` on 127.0.0.1 with a random free port so
the HTTP client, retries, headers and auth are exercised end to end without
touching the real WHO service.  Tests configure:

* ``autocode``: ``{searchText: code_or_None}`` (unknown text -> ``theCode: null``)
* ``search``: ``{q: [destination entity dicts]}`` (unknown q -> no entities)
* ``fail_next[route]``: a list of HTTP statuses returned (and consumed) before
  the normal answer; ``fail_always[route]``: a status returned every time.
  Routes: ``"autocode"``, ``"search"``, ``"token"``.
* ``require_token``: API routes answer 401 unless ``Authorization: Bearer``
  carries a currently valid token issued by ``POST /connect/token``.
* ``delay``: seconds to sleep in API handlers (to observe concurrency).

Every request is recorded in ``requests`` (``Recorded`` objects).
"""

from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

TOKEN_PATH = "/connect/token"
_API_RE = re.compile(r"^/icd/release/11/(?P<release>[^/]+)/mms/(?P<endpoint>autocode|search)$")


@dataclass
class Recorded:
    method: str
    path: str
    route: str
    query: dict[str, str]
    headers: dict[str, str]
    form: dict[str, str] = field(default_factory=dict)
    status: int = 0


class FakeWhoIcdServer:
    def __init__(self, release: str = "2025-01", require_token: bool = False,
                 client_id: str = "test-client", client_secret: str = "test-secret"):
        self.release = release
        self.require_token = require_token
        self.client_id = client_id
        self.client_secret = client_secret
        self.autocode: dict[str, str | None] = {}
        self.search: dict[str, list[dict]] = {}
        self.fail_next: dict[str, list[int]] = {"autocode": [], "search": [], "token": []}
        self.fail_always: dict[str, int] = {}
        self.delay = 0.0
        self.token_expires_in = 3600
        self.requests: list[Recorded] = []
        self.issued_tokens: list[str] = []
        self.valid_tokens: set[str] = set()
        self.in_flight = 0
        self.max_in_flight = 0
        self.lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ---------------------------------------------------------------- control
    @property
    def base_url(self) -> str:
        assert self._httpd is not None, "server not started"
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def token_url(self) -> str:
        return self.base_url + TOKEN_PATH

    def start(self) -> "FakeWhoIcdServer":
        server = self

        class Handler(_Handler):
            fake = server

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever,
                                        kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> "FakeWhoIcdServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def revoke_tokens(self) -> None:
        """Invalidate every issued token (next API call gets 401)."""
        with self.lock:
            self.valid_tokens.clear()

    def calls(self, route: str | None = None) -> list[Recorded]:
        with self.lock:
            return [r for r in self.requests if route is None or r.route == route]

    # --------------------------------------------------------------- answers
    def _take_failure(self, route: str) -> int | None:
        with self.lock:
            if route in self.fail_always:
                return self.fail_always[route]
            queue = self.fail_next.setdefault(route, [])
            return queue.pop(0) if queue else None

    def handle_token(self, rec: Recorded) -> tuple[int, dict]:
        failure = self._take_failure("token")
        if failure:
            return failure, {"error": "scripted failure"}
        f = rec.form
        if f.get("grant_type") != "client_credentials" or f.get("scope") != "icdapi_access":
            return 400, {"error": "unsupported_grant_type"}
        if f.get("client_id") != self.client_id or f.get("client_secret") != self.client_secret:
            return 400, {"error": "invalid_client"}
        with self.lock:
            token = f"tok-{len(self.issued_tokens) + 1}"
            self.issued_tokens.append(token)
            self.valid_tokens.add(token)
        return 200, {"access_token": token, "expires_in": self.token_expires_in,
                     "token_type": "Bearer", "scope": "icdapi_access"}

    def handle_api(self, rec: Recorded, release: str, endpoint: str) -> tuple[int, dict]:
        if self.require_token:
            auth = rec.headers.get("authorization", "")
            token = auth[len("Bearer "):] if auth.startswith("Bearer ") else None
            with self.lock:
                ok = token is not None and token in self.valid_tokens
            if not ok:
                return 401, {"error": "unauthorized"}
        if release != self.release:
            return 404, {"error": f"release {release} not found"}
        failure = self._take_failure(endpoint)
        if failure:
            return failure, {"error": "scripted failure"}
        if self.delay:
            time.sleep(self.delay)
        if endpoint == "autocode":
            text = rec.query.get("searchText", "")
            code = self.autocode.get(text)
            return 200, {
                "searchText": text,
                "matchingText": text if code else None,
                "theCode": code,
                "foundationURI": "http://id.who.int/icd/entity/1" if code else None,
                "linearizationURI": "http://id.who.int/icd/release/11/mms/1" if code else None,
                "matchLevel": 0 if code else None,
                "matchScore": 1.0 if code else 0.0,
                "matchType": 0 if code else None,
                "isTitle": bool(code),
            }
        q = rec.query.get("q", "")
        ents = self.search.get(q, [])
        return 200, {"destinationEntities": ents, "error": False, "errorMessage": None,
                     "resultChopped": False, "wordSuggestionsChopped": False,
                     "guessType": 0, "uniqueSearchId": "fake", "words": None}


class _Handler(BaseHTTPRequestHandler):
    fake: FakeWhoIcdServer
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out in two writes: no 40 ms wait for an ACK
    # One buffered write per response (flushed by handle_one_request) and no
    # Nagle: otherwise headers and body go out separately and every request
    # pays a ~40 ms delayed-ACK stall on loopback.
    wbufsize = 1 << 16
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: object) -> None:  # keep test output clean
        pass

    def _record(self, method: str) -> tuple[Recorded, str, re.Match | None]:
        parts = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
        form: dict[str, str] = {}
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            body = self.rfile.read(length).decode("utf-8")
            form = {k: v[0] for k, v in parse_qs(body, keep_blank_values=True).items()}
        m = _API_RE.match(parts.path)
        route = "token" if parts.path == TOKEN_PATH else (m.group("endpoint") if m else "unknown")
        rec = Recorded(method=method, path=parts.path, route=route, query=query,
                       headers={k.lower(): v for k, v in self.headers.items()}, form=form)
        with self.fake.lock:
            self.fake.requests.append(rec)
            self.fake.in_flight += 1
            self.fake.max_in_flight = max(self.fake.max_in_flight, self.fake.in_flight)
        return rec, parts.path, m

    def _reply(self, rec: Recorded, status: int, payload: dict) -> None:
        with self.fake.lock:
            self.fake.in_flight -= 1
        rec.status = status
        body = json.dumps(payload).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        if status == 429:
            self.send_header("Retry-After", "0")
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        rec, path, m = self._record("GET")
        if m is None:
            self._reply(rec, 404, {"error": "not found"})
            return
        status, payload = self.fake.handle_api(rec, m.group("release"), m.group("endpoint"))
        self._reply(rec, status, payload)

    def do_POST(self) -> None:
        rec, path, _m = self._record("POST")
        if path != TOKEN_PATH:
            self._reply(rec, 404, {"error": "not found"})
            return
        status, payload = self.fake.handle_token(rec)
        self._reply(rec, status, payload)

"""ICD-11 coding through the WHO ICD-API (cloud or a local WHO container).

This reproduces the WHO-coded matching step of ranked-diagnosis benchmarks: every predicted diagnosis string
is auto-coded (``/mms/autocode``); when auto-coding finds nothing, a
flexisearch (``/mms/search?useFlexisearch=true``) is run, the destination
entity with the highest ``score`` is taken, its title (with the
``<em class='found'>`` highlighting stripped) is auto-coded again, and when
that second auto-code is empty the entity's own ``theCode`` is used.  If both
stages fail the prediction is unmatched (``None``).  Codes are full MMS code
strings; post-coordinated ``&`` / ``/`` clusters are not split.

Why errors are raised rather than swallowed: a service failure (rate limit
exhausted, 5xx, bad credentials, wrong release) is *not* the same as "this
term has no ICD-11 code".  Turning failures into ``None`` would silently lower
a model's score, so :class:`IcdServiceError` is raised after the retries and
only successful lookups are memoised / written to the optional sqlite cache,
which means a rerun resumes where a failed run stopped.
"""

from __future__ import annotations

import html
import re2
import sqlite3
import threading
import time
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable
from urllib.parse import urlsplit

from .errors import IcdServiceError

if TYPE_CHECKING:
    import httpx

__all__ = ["IcdServiceError", "WhoIcdApiCoder", "clean_term"]

DEFAULT_BASE_URL = "https://id.who.int"
DEFAULT_RELEASE = "2025-01"
DEFAULT_TOKEN_URL = "https://icdaccessmanagement.who.int/connect/token"
TOKEN_SCOPE = "icdapi_access"

_TAG_RE = re2.compile(r"<[^>]*>")  # RE2: "<" x n is quadratic on a backtracking engine


def clean_term(term: str | None) -> str:
    """Whitespace-normalise a term (strip, collapse runs); ``""`` for empty input."""
    if term is None:
        return ""
    return " ".join(str(term).split())


def strip_highlighting(title: str) -> str:
    """Remove ``<em class='found'>`` (and any other) tags from a search title."""
    return clean_term(html.unescape(_TAG_RE.sub("", title or "")))


class _SqliteCache:
    """(base_url, release, language, term) -> code; NULL code means "no code"."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        if self.path.parent and not self.path.parent.exists():
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(str(self.path), check_same_thread=False, timeout=30.0)
        with self._lock, self._conn:
            self._conn.execute(
                "CREATE TABLE IF NOT EXISTS icd_codes ("
                " base_url TEXT NOT NULL, release TEXT NOT NULL, language TEXT NOT NULL,"
                " term TEXT NOT NULL, code TEXT, created_at REAL NOT NULL,"
                " PRIMARY KEY (base_url, release, language, term))"
            )

    def get(self, key: tuple[str, str, str, str]) -> tuple[bool, str | None]:
        with self._lock:
            row = self._conn.execute(
                "SELECT code FROM icd_codes WHERE base_url=? AND release=? AND language=? AND term=?",
                key,
            ).fetchone()
        if row is None:
            return False, None
        return True, row[0]

    def put(self, key: tuple[str, str, str, str], code: str | None) -> None:
        with self._lock, self._conn:
            self._conn.execute(
                "INSERT OR REPLACE INTO icd_codes (base_url, release, language, term, code, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (*key, code, time.time()),
            )

    def close(self) -> None:
        with self._lock:
            self._conn.close()


class WhoIcdApiCoder:
    """ICD-11 MMS coder backed by the WHO ICD-API (implements ``IcdCoder``).

    ``base_url`` is ``https://id.who.int`` for the WHO cloud (needs
    ``client_id``/``client_secret``, OAuth2 client credentials) or e.g.
    ``http://localhost:8382`` for a local WHO ICD-API container (no auth).
    ``max_retries`` is the number of *retries* after the first attempt for
    429 / 5xx / timeouts / connection errors, with exponential backoff
    ``backoff_base * 2**attempt`` (capped at ``backoff_max``; a numeric or
    HTTP-date ``Retry-After`` header is honoured within the same cap).
    """

    def __init__(
        self,
        base_url: str = DEFAULT_BASE_URL,
        release: str = DEFAULT_RELEASE,
        language: str = "en",
        client_id: str | None = None,
        client_secret: str | None = None,
        token_url: str = DEFAULT_TOKEN_URL,
        timeout: float = 30.0,
        max_retries: int = 3,
        cache_path: str | Path | None = None,
        concurrency: int = 4,
        *,
        backoff_base: float = 0.5,
        backoff_max: float = 30.0,
        transport: httpx.BaseTransport | None = None,
    ):
        self.base_url = base_url.rstrip("/")
        self.release = release
        self.language = language
        self.client_id = client_id or None
        self.client_secret = client_secret or None
        self.token_url = token_url
        self.timeout = float(timeout)
        self.max_retries = max(0, int(max_retries))
        self.concurrency = max(1, int(concurrency))
        self.backoff_base = float(backoff_base)
        self.backoff_max = float(backoff_max)

        if bool(self.client_id) != bool(self.client_secret):
            raise ValueError("WHO ICD-API: client_id and client_secret must be given together")
        host = (urlsplit(self.base_url).hostname or "").lower()
        if host == "id.who.int" and not self.client_id:
            raise ValueError(
                "The WHO ICD-API cloud (https://id.who.int) needs OAuth2 credentials: pass "
                "client_id/client_secret (or set WHO_ICD_CLIENT_ID / WHO_ICD_CLIENT_SECRET), "
                "or point base_url at a local WHO ICD-API container (WHO_ICD_BASE_URL=http://HOST)."
            )

        self.identity: dict[str, Any] = {
            "coder": "who-icd-api",
            "release": self.release,
            "base_url": self.base_url,
            "language": self.language,
            "linearization": "mms",
            "method": "autocode; else flexisearch top-score entity title re-autocoded "
            "(entity theCode if that is empty)",
            "approximate": False,
        }

        import httpx  # here, not at module level: offline scoring never pays its import

        self._client = httpx.Client(
            timeout=self.timeout,
            transport=transport,
            limits=httpx.Limits(max_connections=self.concurrency + 2,
                                max_keepalive_connections=self.concurrency + 2),
        )
        self._token: str | None = None
        self._token_expiry = 0.0
        self._token_lock = threading.Lock()
        self._memo: dict[str, str | None] = {}
        self._memo_lock = threading.Lock()
        self._cache = _SqliteCache(cache_path) if cache_path is not None else None

    # ------------------------------------------------------------------ setup
    @classmethod
    def from_env(cls, **overrides: Any) -> "WhoIcdApiCoder | None":
        """Build from ``WHO_ICD_*`` environment variables.

        Returns ``None`` when neither ``WHO_ICD_BASE_URL`` nor
        ``WHO_ICD_CLIENT_ID`` is set (nothing configured).  Keyword overrides
        win over the environment.
        """
        from ...settings import Settings

        settings = Settings.from_env()
        if settings.who_base_url is None and settings.who_client_id is None and not overrides.get("base_url") \
                and not overrides.get("client_id"):
            return None
        kwargs: dict[str, Any] = {k: v for k, v in {
            "base_url": settings.who_base_url, "release": settings.who_release, "client_id": settings.who_client_id,
            "client_secret": settings.who_client_secret, "token_url": settings.who_token_url}.items() if v}
        kwargs.update(overrides)
        return cls(**kwargs)

    def close(self) -> None:
        self._client.close()
        if self._cache is not None:
            self._cache.close()

    def __enter__(self) -> "WhoIcdApiCoder":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"WhoIcdApiCoder(base_url={self.base_url!r}, release={self.release!r})"

    # ----------------------------------------------------------------- public
    def code(self, term: str) -> str | None:
        """ICD-11 MMS code for ``term``, ``None`` if the API finds none.

        Raises :class:`IcdServiceError` if the service fails.
        """
        key = clean_term(term)
        if not key:
            return None
        with self._memo_lock:
            if key in self._memo:
                return self._memo[key]
        if self._cache is not None:
            hit, code = self._cache.get(self._cache_key(key))
            if hit:
                with self._memo_lock:
                    self._memo[key] = code
                return code
        code = self._lookup(key)
        if self._cache is not None:
            self._cache.put(self._cache_key(key), code)
        with self._memo_lock:
            self._memo[key] = code
        return code

    def code_many(self, terms: Iterable[str], progress: bool = False) -> dict[str, str | None]:
        """Code unique ``terms`` concurrently (at most ``concurrency`` in flight).

        Returns ``{term: code}`` keyed by the terms as given.  On the first
        :class:`IcdServiceError` pending work is cancelled and the error is
        re-raised; lookups that already succeeded stay cached.
        """
        unique = list(dict.fromkeys(terms))
        result: dict[str, str | None] = {}
        by_key: dict[str, list[str]] = {}
        for t in unique:
            k = clean_term(t)
            if not k:
                result[t] = None
            else:
                by_key.setdefault(k, []).append(t)
        keys = list(by_key)
        from tqdm import tqdm

        bar = tqdm(total=len(keys), desc="ICD-11 (WHO API)", unit="term", disable=not progress)
        try:
            if self.concurrency == 1 or len(keys) <= 1:
                for k in keys:
                    code = self.code(k)
                    for t in by_key[k]:
                        result[t] = code
                    bar.update(1)
            else:
                pool = ThreadPoolExecutor(max_workers=self.concurrency,
                                          thread_name_prefix="who-icd")
                try:
                    futures = {pool.submit(self.code, k): k for k in keys}
                    pending = set(futures)
                    while pending:
                        done, pending = wait(pending, return_when=FIRST_EXCEPTION)
                        for fut in done:
                            code = fut.result()  # re-raises IcdServiceError
                            for t in by_key[futures[fut]]:
                                result[t] = code
                            bar.update(1)
                finally:
                    pool.shutdown(wait=True, cancel_futures=True)
        finally:
            bar.close()
        return {t: result[t] for t in unique}

    # --------------------------------------------------------------- internal
    def _cache_key(self, term: str) -> tuple[str, str, str, str]:
        return (self.base_url, self.release, self.language, term)

    def _mms_url(self, endpoint: str) -> str:
        return f"{self.base_url}/icd/release/11/{self.release}/mms/{endpoint}"

    def _lookup(self, term: str) -> str | None:
        code = self._autocode(term)
        if code:
            return code
        entity = self._flexisearch_top(term)
        if entity is None:
            return None
        title = strip_highlighting(str(entity.get("title") or ""))
        own = entity.get("theCode") or None
        if title:
            code = self._autocode(title, original=term)
            if code:
                return code
        return own

    def _autocode(self, text: str, original: str | None = None) -> str | None:
        data = self._get_json(self._mms_url("autocode"), {"searchText": text}, original or text)
        code = data.get("theCode")
        return str(code) if code else None

    def _flexisearch_top(self, term: str) -> dict | None:
        params = {
            "q": term,
            "useFlexisearch": "true",
            "medicalCodingMode": "true",
            "flatResults": "true",
            "highlightingEnabled": "false",
        }
        data = self._get_json(self._mms_url("search"), params, term)
        if data.get("error"):
            raise IcdServiceError(
                f"WHO ICD-API flexisearch reported an error for term {term!r}: "
                f"{data.get('errorMessage')!r}",
                term=term,
            )
        entities = [e for e in (data.get("destinationEntities") or []) if isinstance(e, dict)]
        if not entities:
            return None
        # max() keeps the first of equal scores, i.e. the API's own order breaks ties.
        return max(entities, key=lambda e: float(e.get("score") or 0.0))

    def _headers(self, token: str | None) -> dict[str, str]:
        h = {"Accept": "application/json", "API-Version": "v2", "Accept-Language": self.language}
        if token:
            h["Authorization"] = f"Bearer {token}"
        return h

    def _get_json(self, url: str, params: dict[str, str], term: str) -> dict:
        refreshed = False
        while True:
            token = self._get_token(force=False) if self.client_id else None
            resp = self._send(lambda: self._client.get(url, params=params, headers=self._headers(token)),
                              what=f"term {term!r}", term=term)
            if resp.status_code == 401 and self.client_id and not refreshed:
                refreshed = True
                self._invalidate_token(token)
                continue
            if resp.status_code != 200:
                raise IcdServiceError(
                    f"WHO ICD-API request for term {term!r} failed with HTTP {resp.status_code} "
                    f"({url}): {resp.text[:300]!r}",
                    term=term, status=resp.status_code,
                )
            try:
                data = resp.json()
            except ValueError as exc:
                raise IcdServiceError(
                    f"WHO ICD-API returned non-JSON for term {term!r} ({url}): {resp.text[:200]!r}",
                    term=term, status=resp.status_code,
                ) from exc
            if not isinstance(data, dict):
                raise IcdServiceError(f"WHO ICD-API returned unexpected JSON for term {term!r}",
                                      term=term, status=resp.status_code)
            return data

    def _send(self, do_request, *, what: str, term: str | None) -> httpx.Response:
        """Run ``do_request`` with retries on 429/5xx/transport errors."""
        import httpx

        attempt = 0
        while True:
            try:
                resp = do_request()
            except httpx.TransportError as exc:  # timeouts, refused/reset connections
                if attempt >= self.max_retries:
                    raise IcdServiceError(
                        f"WHO ICD-API unreachable for {what} after {attempt + 1} attempt(s): "
                        f"{type(exc).__name__}: {exc}",
                        term=term, status=None,
                    ) from exc
                self._sleep(attempt, None)
                attempt += 1
                continue
            if resp.status_code == 429 or resp.status_code >= 500:
                if attempt >= self.max_retries:
                    raise IcdServiceError(
                        f"WHO ICD-API request for {what} failed with HTTP {resp.status_code} "
                        f"after {attempt + 1} attempt(s): {resp.text[:300]!r}",
                        term=term, status=resp.status_code,
                    )
                self._sleep(attempt, resp.headers.get("Retry-After"))
                attempt += 1
                continue
            return resp

    def _sleep(self, attempt: int, retry_after: str | None) -> None:
        delay = self.backoff_base * (2 ** attempt)
        if retry_after:
            try:
                delay = float(retry_after)
            except ValueError:
                try:
                    delay = parsedate_to_datetime(retry_after).timestamp() - time.time()
                except (TypeError, ValueError):
                    pass
        time.sleep(min(max(delay, 0.0), self.backoff_max))

    # ------------------------------------------------------------------ OAuth
    def _invalidate_token(self, token: str | None) -> None:
        with self._token_lock:
            if self._token == token:  # another thread may have refreshed already
                self._token = None
                self._token_expiry = 0.0

    def _get_token(self, force: bool) -> str:
        with self._token_lock:
            if not force and self._token and time.time() < self._token_expiry:
                return self._token
            data = {
                "client_id": self.client_id,
                "client_secret": self.client_secret,
                "scope": TOKEN_SCOPE,
                "grant_type": "client_credentials",
            }
            resp = self._send(lambda: self._client.post(self.token_url, data=data,
                                                        headers={"Accept": "application/json"}),
                              what="the OAuth2 token", term=None)
            if resp.status_code != 200:
                raise IcdServiceError(
                    f"WHO ICD-API token request to {self.token_url} failed with HTTP "
                    f"{resp.status_code} (check WHO_ICD_CLIENT_ID / WHO_ICD_CLIENT_SECRET): "
                    f"{resp.text[:200]!r}",
                    status=resp.status_code,
                )
            try:
                payload = resp.json()
                token = str(payload["access_token"])
                expires_in = float(payload.get("expires_in") or 3600)
            except (ValueError, KeyError, TypeError) as exc:
                raise IcdServiceError(f"WHO ICD-API token response is malformed: {resp.text[:200]!r}",
                                      status=resp.status_code) from exc
            # Refresh a little early so a token never expires mid-request.
            self._token = token
            self._token_expiry = time.time() + max(0.0, expires_in - min(60.0, expires_in / 10))
            return token

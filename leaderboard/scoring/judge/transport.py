"""The judge's HTTP transport: one asyncio event loop in a background thread, one aiohttp session whose
connector keeps at most `concurrency` kept-alive connections to the endpoint.

Why not threads + httpx: 64-128 threads each driving a blocking httpx client cost ~4x the CPU per call of
a bare-asyncio client (GIL hand-offs, one thread per request in flight), and httpx's own AsyncClient
spent ~10 ms of CPU per call in its connection pool at 64 connections (bench/judge_throughput.py; the
numbers are in docs/performance.md). aiohttp parses HTTP in C and its pool is a dict of idle
connections: ~0.4 ms of CPU per call here.

Per call, what costs CPU here is the event loop and aiohttp's request path: the loop is uvloop's (libuv, in C)
where it is installed (not on Windows: asyncio's own loop then), the bodies are encoded and decoded by
orjson, the URL is parsed once, no header is added that the endpoint does not need, and a plain body within
the 4 MB bound is read in one call (no chunk iterator per call).

Callers stay synchronous: `call(coroutine)` runs a coroutine on the loop and returns its result, from any
thread. One call of `post_once` is one HTTP attempt; the retry policy (attempts, backoff, Retry-After, the
budget and the stall rule) is the judge client's.
"""
from __future__ import annotations

import asyncio
import os
import threading
import weakref
from typing import Any, Callable, Coroutine

import time
from datetime import timezone
from email.utils import parsedate_to_datetime

from ...fast_json import dumps as encode_body  # the request body: orjson, json past 64-bit integers
from ...fast_json import loads as decode_body  # a response body: orjson, json for NaN/Infinity
from . import limits


def new_event_loop() -> asyncio.AbstractEventLoop:
    """uvloop's loop where it is installed (~half the CPU per request of asyncio's selector loop at 128 in
    flight), else asyncio's: the behaviour is the same, only the cost differs."""
    try:
        import uvloop
    except ImportError:
        return asyncio.new_event_loop()
    return uvloop.new_event_loop()


class _Loop:
    """One running event loop, its thread and the session made on it."""

    def __init__(self):
        self.pid = os.getpid()
        self.loop = new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="judge-http", daemon=True)
        self.session = None
        self.slots: asyncio.Semaphore | None = None
        self.thread.start()


def _shutdown(state: _Loop) -> None:
    """Close the session, stop the loop and end its thread: on close(), or when a transport nobody closed
    is garbage-collected (so a forgotten judge leaks neither a thread nor sockets), or at exit."""
    if state.pid != os.getpid() or state.loop.is_closed():
        return  # a forked child: the parent's loop thread does not run here

    async def close_session() -> None:
        if state.session is not None:
            await state.session.close()

    future = asyncio.run_coroutine_threadsafe(close_session(), state.loop)
    if threading.current_thread() is state.thread:
        state.loop.call_soon(state.loop.stop)
        return
    try:
        future.result(timeout=10)
    finally:
        state.loop.call_soon_threadsafe(state.loop.stop)
        state.thread.join(timeout=10)
        if not state.thread.is_alive():
            state.loop.close()


class AsyncChatTransport:
    def __init__(self, base_url: str, headers: dict[str, str], timeout: float, concurrency: int):
        self.url = base_url.rstrip("/") + "/chat/completions"
        self._url = None  # parsed once (aiohttp re-parses a str URL on every request)
        self.headers, self.timeout, self.concurrency = dict(headers), timeout, max(1, concurrency)
        self._lock = threading.Lock()
        self._state: _Loop | None = None
        self._finalizer: weakref.finalize | None = None

    # ------------------------------------------------------------------ the loop thread
    def call(self, coroutine: Coroutine) -> Any:
        """Run `coroutine` on the transport's loop and wait for its result (from any thread but the loop's)."""
        return asyncio.run_coroutine_threadsafe(coroutine, self._running().loop).result()

    @property
    def running(self) -> bool:
        state = self._state
        return state is not None and state.thread.is_alive()

    def _running(self) -> _Loop:
        with self._lock:
            # started lazily (a rescore answered from the cache never opens a connection) and again in a
            # forked child, where the parent's loop thread does not exist
            if self._state is None or self._state.pid != os.getpid():
                self._state = _Loop()
                self._finalizer = weakref.finalize(self, _shutdown, self._state)
            return self._state

    def close(self) -> None:
        """Close the connections and end the loop thread (a later call starts a new one)."""
        with self._lock:
            finalizer, self._finalizer, self._state = self._finalizer, None, None
        if finalizer is not None:
            finalizer()

    def _ensure_session(self):
        """The session and the in-flight bound, made on the loop (aiohttp binds both to it)."""
        state = self._state
        if state.session is None:
            import aiohttp  # only when a request is actually sent
            import yarl

            state.session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=self.concurrency, limit_per_host=self.concurrency),
                timeout=aiohttp.ClientTimeout(total=None),  # each attempt is bounded by post_once
                headers=self.headers, cookie_jar=aiohttp.DummyCookieJar())
            state.slots = asyncio.Semaphore(self.concurrency)
            self._url = yarl.URL(self.url)
        return state.session

    @property
    def slots(self) -> asyncio.Semaphore:
        """At most `concurrency` requests in flight; held across a request's retries and repairs too."""
        self._ensure_session()
        return self._state.slots

    # ------------------------------------------------------------------ one request
    async def post_once(self, body: dict, timeout: float, now: Callable[[], float] = time.time) -> dict:
        """One HTTP attempt: the response JSON (with `choices[0].message` present), or AttemptFailed naming
        the failure kind (limits.py). The whole attempt, body included, is bounded by `timeout` (a judge that
        trickles a chunked body is cut like one that hangs). The caller holds a slot."""
        import aiohttp

        session = self._ensure_session()
        try:
            status, retry_after, content = await asyncio.wait_for(self._exchange(session, body, now), timeout)
        except asyncio.TimeoutError:
            raise AttemptFailed(limits.TIMEOUT) from None
        except aiohttp.ClientPayloadError:  # a broken content-encoding or chunked framing
            raise AttemptFailed(limits.DECODE) from None
        except aiohttp.ClientError:
            raise AttemptFailed(limits.CONNECTION) from None
        if status == 429 or status == 408 or status >= 500:
            raise AttemptFailed(limits.status_kind(status), retry_after=retry_after)
        if status >= 400:  # a bad request will not get better
            raise AttemptFailed(limits.status_kind(status), retryable=False)
        if content is None:  # a runaway endpoint must not fill memory
            raise AttemptFailed(limits.TOO_LARGE)
        try:
            payload = decode_body(content)
        except ValueError:
            raise AttemptFailed(limits.DECODE) from None
        try:
            message = payload["choices"][0]["message"]
            if not isinstance(message, dict) or not isinstance(message.get("content") or "", str):
                raise TypeError
        except (KeyError, IndexError, TypeError):
            raise AttemptFailed(limits.ENVELOPE) from None
        return payload

    async def _exchange(self, session, body: dict, now: Callable[[], float]) -> tuple[int, float | None, bytes | None]:
        async with session.post(self._url, data=encode_body(body)) as response:
            retry_after = retry_after_seconds(response.headers.get("Retry-After"), now())
            return response.status, retry_after, await read_bounded(response, MAX_RESPONSE_BYTES)


class AttemptFailed(Exception):
    """One attempt failed: `kind` as recorded; `retryable` False for a refusal (4xx); `retry_after` the
    seconds the endpoint asked to wait (Retry-After), if it said."""

    def __init__(self, kind: str, retryable: bool = True, retry_after: float | None = None):
        super().__init__(kind)
        self.kind, self.retryable, self.retry_after = kind, retryable, retry_after


def retry_after_seconds(value: str | None, now: float) -> float | None:
    """Retry-After as seconds from `now` (epoch seconds): delta-seconds or an HTTP-date; None when absent or
    unreadable. A date in the past means no wait."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(min(int(value), 10 ** 7))
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, when.timestamp() - now)


MAX_RESPONSE_BYTES = 4_000_000  # a verdict is a few hundred bytes; 4 MB leaves room for verbose judges


async def read_bounded(response, limit: int) -> bytes | None:
    """The body, or None as soon as it passes `limit` bytes. A plain body whose Content-Length is within the
    bound is read in one call (the usual verdict: no chunk iterator per call); one announced over the bound
    is refused unread; a compressed or chunked body is read in chunks and counted as decoded, so a small
    gzip bomb is cut at `limit` too."""
    length = response.content_length
    if length is not None and "Content-Encoding" not in response.headers:
        return await response.read() if length <= limit else None
    chunks, size = [], 0
    async for chunk in response.content.iter_chunked(65536):
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


"""POST to an OpenAI-compatible `chat/completions` with retries: one policy for the synchronous httpx
path (the `predict` runner) and the asyncio path (the judge's `AsyncChatTransport`). Exponential, jittered
backoff on 429, 5xx, timeouts, connection errors and malformed bodies; any other 4xx fails at once (a bad
request will not get better); at most `max_retries + 1` attempts."""
from __future__ import annotations

import json
import random
import time
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:  # the judge's asyncio path never loads httpx
    import httpx

from ..fast_json import loads as parse_body  # a response body: orjson, json for NaN/Infinity


class ChatRequestError(RuntimeError):
    """The endpoint refused the request, or kept failing after every retry."""


def backoff_delay(attempt: int, backoff_base: float, backoff_max: float) -> float:
    """Seconds to wait before attempt number `attempt` (1 = the first retry): doubling, capped, jittered
    to 50-100% so that many clients refused at once do not come back at once."""
    return min(backoff_max, backoff_base * 2 ** (attempt - 1)) * (0.5 + random.random() / 2)


def read_response(status: int, body: bytes, error_text: Callable[[], str]) -> tuple[dict | None, str]:
    """(payload, "") for a usable answer; (None, reason) for one worth retrying; ChatRequestError for a
    refusal that will not get better. `error_text` is read only then (the endpoint's error message)."""
    if status == 429 or status >= 500:
        return None, f"HTTP {status}"
    if status >= 400:
        raise ChatRequestError(f"HTTP {status}: {error_text()}")
    try:
        payload = parse_body(body)
        payload["choices"][0]["message"]
    except (ValueError, KeyError, IndexError, TypeError):
        return None, "malformed response body"
    return payload, ""


def failed(max_retries: int, last: str) -> ChatRequestError:
    return ChatRequestError(f"failed after {max_retries + 1} attempts ({last})")


def post_chat(http: "httpx.Client", body: dict, max_retries: int, backoff_base: float, backoff_max: float,
              count: Callable[[str], None] = lambda name: None) -> dict:
    """The response JSON (with `choices[0].message` present); `count` hears 'http_calls' and 'retries'."""
    import httpx

    last = ""
    for attempt in range(max_retries + 1):
        if attempt:
            count("retries")
            time.sleep(backoff_delay(attempt, backoff_base, backoff_max))
        count("http_calls")
        try:
            response = http.post("chat/completions", json=body)
        except httpx.TimeoutException:
            last = "timed out"
            continue
        except httpx.TransportError as exc:
            last = f"connection error ({type(exc).__name__})"
            continue
        payload, last = read_response(response.status_code, response.content, lambda: error_message(response.content))
        if payload is not None:
            return payload
    raise failed(max_retries, last)


def error_message(content: bytes) -> str:
    """The endpoint's `error.message`, else the body's text, at most 200 characters."""
    try:
        message = json.loads(content).get("error", {}).get("message", "")
    except (ValueError, AttributeError):
        message = content.decode("utf-8", "replace")
    return str(message)[:200] or "request refused"

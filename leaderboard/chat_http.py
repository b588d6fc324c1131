"""POST to an OpenAI-compatible `chat/completions` with retries: shared by the judge client and the
`predict` runner. Exponential, jittered backoff on 429, 5xx, timeouts, connection errors and malformed
bodies; any other 4xx fails at once (a bad request will not get better)."""
from __future__ import annotations

import random
import time
from typing import Callable

import httpx


class ChatRequestError(RuntimeError):
    """The endpoint refused the request, or kept failing after every retry."""


def post_chat(http: httpx.Client, body: dict, max_retries: int, backoff_base: float, backoff_max: float,
              count: Callable[[str], None] = lambda name: None) -> dict:
    """The response JSON (with `choices[0].message` present); `count` hears 'http_calls' and 'retries'."""
    last = ""
    for attempt in range(max_retries + 1):
        if attempt:
            count("retries")
            delay = min(backoff_max, backoff_base * 2 ** (attempt - 1))
            time.sleep(delay * (0.5 + random.random() / 2))
        count("http_calls")
        try:
            response = http.post("chat/completions", json=body)
        except httpx.TimeoutException:
            last = "timed out"
            continue
        except httpx.TransportError as exc:
            last = f"connection error ({type(exc).__name__})"
            continue
        if response.status_code == 429 or response.status_code >= 500:
            last = f"HTTP {response.status_code}"
            continue
        if response.status_code >= 400:
            raise ChatRequestError(f"HTTP {response.status_code}: {error_message(response)}")
        try:
            payload = response.json()
            payload["choices"][0]["message"]
        except (ValueError, KeyError, IndexError, TypeError):
            last = "malformed response body"
            continue
        return payload
    raise ChatRequestError(f"failed after {max_retries + 1} attempts ({last})")


def error_message(response: httpx.Response) -> str:
    try:
        message = response.json().get("error", {}).get("message", "")
    except (ValueError, AttributeError):
        message = response.text
    return str(message)[:200] or "request refused"

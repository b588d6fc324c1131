"""One client for any OpenAI-compatible chat endpoint (vLLM, Ollama, llama.cpp server, hosted APIs).

Bounded concurrency; retries with exponential backoff on 429/5xx/timeouts/connection errors and on
unparseable answers (one repair re-ask each time); a disk cache keyed by the full request; strict
parsing by the caller's parser. A call that still fails is a *failure*, never a score.
"""
from __future__ import annotations

import base64
import hashlib
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable
from urllib.parse import urlsplit

import httpx
from tqdm.auto import tqdm

from ..chat_http import ChatRequestError, post_chat
from .cache import JudgeCache, request_key
from .prompts import Prompt
from .safety import quote_candidate

RESPONSE_FORMATS = ("json_object", "json_schema", "text")
KEY_VERSION = "k2"  # cache-key scheme; bump when the request a JudgeCall renders to changes shape
REPAIR = ("Your previous answer could not be parsed ({error}). Answer again with only the requested format, "
          "nothing else.")


class JudgeParseError(ValueError):
    """Raised by a parser when the judge's text is not in the required format."""


@dataclass(frozen=True)
class JudgeConfig:
    base_url: str
    model: str
    api_key: str | None = None
    timeout: float = 120.0
    max_retries: int = 4
    concurrency: int = 8
    response_format: str = "json_object"
    temperature: float = 0.0
    max_tokens: int = 1024
    seed: int | None = 0
    cache_path: Path | None = None
    backoff_base: float = 1.0
    backoff_max: float = 60.0

    @classmethod
    def from_env(cls, model_var: str = "JUDGE_MODEL", **overrides) -> "JudgeConfig | None":
        """JUDGE_BASE_URL + JUDGE_MODEL (or `model_var`, e.g. JUDGE_MODEL_2) + optional JUDGE_API_KEY;
        None when either is missing. Flags passed as overrides win."""
        from ..settings import ENV_NAMES, Settings

        settings = Settings.from_env()
        field_name = {v: k for k, v in ENV_NAMES.items()}[model_var]
        base = overrides.pop("base_url", None) or settings.judge_base_url
        model = overrides.pop("model", None) or getattr(settings, field_name)
        if not base or not model:
            return None
        key = overrides.pop("api_key", None) or settings.judge_api_key
        return cls(base_url=base, model=model, api_key=key, **overrides)


@dataclass
class JudgeCall:
    """One judgement: a prompt, its variables (the candidate text under `candidate`), optional images."""

    key: str
    prompt: Prompt
    variables: dict[str, str]
    images: list[bytes] = field(default_factory=list)
    candidate_field: str = "candidate"
    # (names, digest, flagged) from `item_digest`: the variables and images every call of one item shares,
    # hashed once per item by the caller (a case's dialogue and images for each of its rubric criteria)
    item: tuple[tuple[str, ...], str, bool] | None = None


def item_digest(variables: dict[str, str], images: list[bytes] = (), candidate_field: str = "candidate"
                ) -> tuple[tuple[str, ...], str, bool]:
    """For JudgeCall.item: the digest of what an item's calls share (the candidate as quoted, so a
    redaction change is a new key), and whether the candidate was flagged as addressing the judge."""
    parts, flagged = [], False
    for name, value in sorted(variables.items()):
        if name == candidate_field:
            value, flagged = quote_candidate(value)
        parts.append(name + "=" + _text_sha(value))
    parts += ["image=" + _image_sha(b) for b in images]
    return tuple(sorted(variables)), hashlib.sha256("\n".join(parts).encode()).hexdigest(), flagged


@dataclass
class JudgeVerdict:
    key: str
    value: dict | None
    raw: str = ""
    error: str | None = None
    cached: bool = False
    flagged_injection: bool = False

    @property
    def ok(self) -> bool:
        return self.value is not None


@dataclass
class JudgeStats:
    http_calls: int = 0
    cache_hits: int = 0
    retries: int = 0
    repairs: int = 0
    failures: int = 0
    flagged: int = 0

    def as_dict(self) -> dict:
        return dict(self.__dict__)


class Judge:
    def __init__(self, config: JudgeConfig, client: httpx.Client | None = None):
        if config.response_format not in RESPONSE_FORMATS:
            raise ValueError(f"response_format must be one of {RESPONSE_FORMATS}")
        self.config = config
        headers = {"Content-Type": "application/json"}
        if config.api_key:
            headers["Authorization"] = f"Bearer {config.api_key}"
        self._client_args = dict(base_url=config.base_url.rstrip("/") + "/", headers=headers, timeout=config.timeout)
        self._shared_http = client  # a caller's client is shared by the workers
        self._local = threading.local()
        self._clients: list[tuple[threading.Thread, httpx.Client]] = []
        self.cache = JudgeCache(config.cache_path)
        self.stats = JudgeStats()
        self._lock = threading.Lock()
        self.prompts_used: dict[str, str] = {}
        self._inflight: dict[str, threading.Event] = {}
        self._settings_digests: dict[int, tuple[dict | None, str]] = {}
        self._headers: dict[tuple[int, int], tuple[Prompt, dict | None, str]] = {}

    @property
    def identity(self) -> dict[str, Any]:
        """What a result records about its judge (never the key)."""
        parts = urlsplit(self.config.base_url)
        return {"model": self.config.model, "endpoint": f"{parts.scheme}://{parts.hostname}",
                "response_format": self.config.response_format, "temperature": self.config.temperature,
                "seed": self.config.seed, "prompts": dict(self.prompts_used)}

    # ----------------------------------------------------------------- requests
    def _messages(self, call: JudgeCall, inline_images: bool = True) -> tuple[list[dict], bool]:
        """The chat messages. With `inline_images=False` each image is named by its SHA-256 instead of
        its base64 bytes: that form is what the cache key hashes (cheap, and the same for the same image)."""
        variables = dict(call.variables)
        flagged = False
        if call.candidate_field in variables:
            variables[call.candidate_field], flagged = quote_candidate(variables[call.candidate_field])
        text = call.prompt.render(**variables)
        content: Any = text
        if call.images:
            content = [{"type": "text", "text": text}] + [
                {"type": "image_url", "image_url": {"url": _image_url(b) if inline_images else "sha256:" + _image_sha(b)}}
                for b in call.images]
        return [{"role": "system", "content": call.prompt.system}, {"role": "user", "content": content}], flagged

    def _http(self) -> httpx.Client:
        """This worker thread's own client (one kept-alive connection). One pool shared by 64-128 threads
        spends its time assigning connections under the pool's lock; a client per worker never waits for
        another worker, and a connection is reused for the worker's next call."""
        if self._shared_http is not None:
            return self._shared_http
        client = getattr(self._local, "client", None)
        if client is None:
            client = httpx.Client(**self._client_args,
                                  limits=httpx.Limits(max_connections=1, max_keepalive_connections=1))
            self._local.client = client
            with self._lock:
                # a caller's own pool (judge_one from short-lived threads) leaves clients behind: close
                # those whose thread has ended, so connections never pile up across batches
                ended = [(t, c) for t, c in self._clients if not t.is_alive()]
                self._clients = [(t, c) for t, c in self._clients if t.is_alive()]
                self._clients.append((threading.current_thread(), client))
            for _, old in ended:
                old.close()
        return client

    def _body(self, messages: list[dict], schema: dict | None) -> dict:
        body = {"model": self.config.model, "messages": messages, "temperature": self.config.temperature,
                "max_tokens": self.config.max_tokens}
        if self.config.seed is not None:
            body["seed"] = self.config.seed
        if self.config.response_format == "json_object":
            body["response_format"] = {"type": "json_object"}
        elif self.config.response_format == "json_schema" and schema is not None:
            body["response_format"] = {"type": "json_schema", "json_schema": {"name": "verdict", "schema": schema,
                                                                            "strict": True}}
        return body

    def _post(self, body: dict) -> str:
        """The assistant text; transient failures are retried, RuntimeError when they persist."""
        def count(name: str) -> None:
            with self._lock:
                setattr(self.stats, name, getattr(self.stats, name) + 1)

        try:
            payload = post_chat(self._http(), body, self.config.max_retries, self.config.backoff_base,
                                self.config.backoff_max, count)
        except ChatRequestError as exc:
            raise RuntimeError(f"judge endpoint {exc}") from None
        return payload["choices"][0]["message"].get("content") or ""

    def _key(self, call: JudgeCall, schema: dict | None) -> tuple[str, bool]:
        """The cache key, from stable parts hashed once each: the request settings (once per judge and
        schema), the prompt's id and text hash, every variable's text (the candidate as quoted, so a
        redaction change is a new key) and every image's SHA-256. The criteria of one case share all
        but one part, and those digests are memoised, so a key costs one small hash, not a rendered
        prompt + json.dumps + a hash of the whole request (a 50,000-call rescore spent most of its time there)."""
        if call.item is not None:  # shared part hashed once per item: only the rest is hashed here
            names, digest, flagged = call.item
            h = hashlib.sha256(self._header(call.prompt, schema).encode())
            h.update(b"\nitem=" + digest.encode())
            for name in sorted(n for n in call.variables if n not in names):
                value = call.variables[name].encode()
                h.update(b"\n%s=%d:" % (name.encode(), len(value)) + value)  # length-prefixed: unambiguous
            return h.hexdigest(), flagged
        variables = call.variables
        flagged = False
        if call.candidate_field in variables:
            quoted, flagged = quote_candidate(variables[call.candidate_field])
            variables = {**variables, call.candidate_field: quoted}
        parts = [self._header(call.prompt, schema)]
        parts += [name + "=" + _text_sha(value) for name, value in sorted(variables.items())]
        parts += ["image=" + _image_sha(b) for b in call.images]
        return hashlib.sha256("\n".join(parts).encode()).hexdigest(), flagged

    def _header(self, prompt: Prompt, schema: dict | None) -> str:
        """Key version, request settings and prompt (id and text hash): one string per (prompt, schema)."""
        found = self._headers.get((id(prompt), id(schema)))
        if found is None or found[0] is not prompt or found[1] is not schema:
            text = "\n".join([KEY_VERSION, self._settings_digest(schema), prompt.id, prompt.sha])
            found = (prompt, schema, text)
            self._headers[(id(prompt), id(schema))] = found
        return found[2]

    def _settings_digest(self, schema: dict | None) -> str:
        """Hash of everything in the request body but the messages (model, temperature, max_tokens, seed,
        response_format with its schema); one per schema object for the judge's lifetime."""
        found = self._settings_digests.get(id(schema))
        if found is None or found[0] is not schema:
            found = (schema, request_key(self._body([], schema)))
            self._settings_digests[id(schema)] = found
        return found[1]

    def _legacy_key(self, call: JudgeCall, schema: dict | None) -> str:
        """The key of caches written before KEY_VERSION "k2" (a hash of the whole rendered request):
        looked up only on a miss, so verdicts paid for under the old key are not paid for again."""
        key_messages, _ = self._messages(call, inline_images=False)
        return request_key({**self._body(key_messages, schema), "prompt": call.prompt.id,
                            "prompt_sha": call.prompt.sha})

    def _legacy_hit(self, call: JudgeCall, schema: dict | None, key: str) -> tuple[str, dict] | None:
        hit = self.cache.get(self._legacy_key(call, schema))
        if hit is not None:
            self.cache.put(key, *hit)  # migrated: the next lookup finds it under the current key
        return hit

    def judge_one(self, call: JudgeCall, parse: Callable[[str], dict], schema: dict | None = None,
                  _looked_up: bool = False, _keyed: tuple[str, bool] | None = None) -> JudgeVerdict:
        key, flagged = _keyed or self._key(call, schema)  # `run` passes the key it already computed
        with self._lock:
            self.prompts_used[call.prompt.id] = call.prompt.sha
            self.stats.flagged += flagged
        with self._lock:  # single flight: identical requests running at once share one HTTP call
            leader = key not in self._inflight
            event = self._inflight.setdefault(key, threading.Event())
        if not leader:
            event.wait()
        try:
            return self._judge_uncached(call, parse, key, schema, flagged, looked_up=_looked_up)
        finally:
            if not _looked_up:
                self.cache.flush()  # a call on its own is written at once; `run` flushes per batch
            if leader:
                with self._lock:
                    self._inflight.pop(key, None)
                event.set()

    def _judge_uncached(self, call: JudgeCall, parse, key: str, schema: dict | None, flagged: bool,
                        looked_up: bool = False) -> JudgeVerdict:
        # `run` has looked every key up on disk already: then only a verdict obtained since (by an identical
        # request in flight at the same time) can be cached, and it is in memory
        hit = self.cache.get(key, memory_only=looked_up)
        if hit is None and not looked_up:
            hit = self._legacy_hit(call, schema, key)
        if hit is not None:
            with self._lock:
                self.stats.cache_hits += 1
            return JudgeVerdict(call.key, hit[1], hit[0], cached=True, flagged_injection=flagged)
        messages, _ = self._messages(call)  # images inlined only now, on a miss
        body = self._body(messages, schema)
        error = ""
        attempt_body = body
        for repair in range(self.config.max_retries + 1):
            try:
                raw = self._post(attempt_body)
            except RuntimeError as exc:
                error = str(exc)
                break
            try:
                parsed = parse(raw)
            except (JudgeParseError, ValueError, KeyError, TypeError) as exc:
                error = f"unparseable judge answer: {str(exc)[:120]}"
                with self._lock:
                    self.stats.repairs += 1
                attempt_body = {**body, "messages": messages + [{"role": "assistant", "content": raw[:4000]},
                                                                {"role": "user", "content": REPAIR.format(error=error)}]}
                continue
            self.cache.put(key, raw, parsed)
            return JudgeVerdict(call.key, parsed, raw, flagged_injection=flagged)
        with self._lock:
            self.stats.failures += 1
        return JudgeVerdict(call.key, None, error=error or "judge failed", flagged_injection=flagged)

    def run(self, calls: list[JudgeCall], parse: Callable[[str], dict], schema: dict | None = None,
            progress: bool = False, desc: str = "judging") -> list[JudgeVerdict]:
        """Verdicts in the order of `calls`, computed with at most `concurrency` requests in flight.
        Cached verdicts are answered here in one batched lookup; only misses go to the worker threads
        (a full rescore of 50,000 calls then takes seconds, not a thread pool's worth of lock waits)."""
        if not calls:
            return []
        keyed = [self._key(call, schema) for call in calls]
        hits = self.cache.get_many([key for key, _ in keyed])
        if len(hits) < len(keyed) and self.cache.has_legacy_rows():
            self._migrate_legacy(calls, keyed, hits, schema)
        verdicts: list[JudgeVerdict | None] = [None] * len(calls)
        misses = []
        hit_count = hit_flagged = 0
        for index, (call, (key, flagged)) in enumerate(zip(calls, keyed)):
            found = hits.get(key)
            if found is not None:
                verdicts[index] = JudgeVerdict(call.key, found[1], found[0], cached=True, flagged_injection=flagged)
                hit_count += 1
                hit_flagged += flagged
            else:
                misses.append(index)
        with self._lock:  # once per run, not per call
            for prompt in {id(call.prompt): call.prompt for call in calls}.values():
                self.prompts_used[prompt.id] = prompt.sha
            self.stats.cache_hits += hit_count
            self.stats.flagged += hit_flagged
        bar = tqdm(total=len(calls), initial=len(calls) - len(misses), desc=desc, unit="call", disable=not progress)
        if misses:
            with ThreadPoolExecutor(max_workers=max(1, self.config.concurrency)) as pool:
                futures = {index: pool.submit(self.judge_one, calls[index], parse, schema, True, keyed[index]) for index in misses}
                for index in misses:
                    verdicts[index] = futures[index].result()
                    bar.update(1)
            self.cache.flush()  # the last partial batch of verdicts
            self._close_worker_clients(ended_only=True)  # their threads are gone with the pool
        bar.close()
        return verdicts

    def _migrate_legacy(self, calls: list[JudgeCall], keyed: list, hits: dict, schema: dict | None) -> None:
        """Misses looked up under the pre-"k2" key; found ones are re-stored under the current key."""
        legacy = {index: self._legacy_key(calls[index], schema) for index, (key, _) in enumerate(keyed)
                  if key not in hits}
        found = self.cache.get_many(list(legacy.values()))
        for index, old in legacy.items():
            if old in found:
                key = keyed[index][0]
                hits[key] = found[old]
                self.cache.put(key, *found[old])
        self.cache.flush()

    def _close_worker_clients(self, ended_only: bool = False) -> None:
        """Close the per-thread clients (of ended threads only: another run may be using the others)."""
        with self._lock:
            clients = [(t, c) for t, c in self._clients if not (ended_only and t.is_alive())]
            self._clients = [(t, c) for t, c in self._clients if ended_only and t.is_alive()]
        for _, client in clients:
            client.close()

    def with_model(self, model: str) -> "Judge":
        """A second judge on the same endpoint (protocols with two judges) sharing the cache file."""
        return Judge(replace(self.config, model=model))

    def close(self) -> None:
        self._close_worker_clients()
        if self._shared_http is not None:
            self._shared_http.close()
        self.cache.close()


@lru_cache(maxsize=4096)
def _image_sha(data: bytes) -> str:
    """Memoised: the same image object is named in many calls (one per rubric criterion); bytes cache
    their own hash, so a hit costs a comparison, not a rehash."""
    return hashlib.sha256(data).hexdigest()


@lru_cache(maxsize=65536)
def _text_sha(text: str) -> str:
    """Memoised like _image_sha: the dialogue of a case is the same string object in each of its calls."""
    return hashlib.sha256(text.encode()).hexdigest()


def _image_url(data: bytes) -> str:
    return "data:image/" + _image_kind(data) + ";base64," + base64.b64encode(data).decode()


def _image_kind(data: bytes) -> str:
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return "png"
    if data[:3] == b"GIF":
        return "gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    return "jpeg"


def parse_json_object(raw: str) -> dict:
    """The first JSON object in the text (fenced code allowed); JudgeParseError otherwise."""
    import json
    import re

    text = re.sub(r"```(?:json)?", "", raw).strip()
    start = text.find("{")
    if start < 0:
        raise JudgeParseError("no JSON object")
    try:
        value, _ = json.JSONDecoder().raw_decode(text[start:])
    except ValueError as exc:
        raise JudgeParseError(f"invalid JSON ({exc})") from None
    if not isinstance(value, dict):
        raise JudgeParseError("not a JSON object")
    return value

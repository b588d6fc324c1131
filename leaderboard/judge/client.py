"""One client for any OpenAI-compatible chat endpoint (vLLM, Ollama, llama.cpp server, hosted APIs).

Bounded concurrency; retries with exponential backoff on 429/5xx/timeouts/connection errors and on
unparseable answers (one repair re-ask each time); a disk cache keyed by the full request; strict
parsing by the caller's parser. A call that still fails is a *failure*, never a score.
"""
from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import re
import threading
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable
from urllib.parse import urlsplit

from ..chat_http import ChatRequestError
from .cache import JudgeCache, request_key
from .prompts import Prompt
from .safety import quote_candidate
from .transport import AsyncChatTransport

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


def item_digest(variables: dict[str, str], images: list[bytes] = (), candidate_field: str = "candidate",
                image_sha256: list[str] | None = None) -> tuple[tuple[str, ...], str, bool]:
    """For JudgeCall.item: the digest of what an item's calls share (the candidate as quoted, so a
    redaction change is a new key), and whether the candidate was flagged as addressing the judge.
    `image_sha256` (hex SHA-256 of each image, in order) stands for `images` when a dataset publishes
    them: the same digest, without reading the image bytes (a rescore from the cache needs no image)."""
    if images and image_sha256 is not None:
        raise ValueError("pass the images or their SHA-256, not both")
    parts, flagged = [], False
    for name, value in sorted(variables.items()):
        if name == candidate_field:
            value, flagged = quote_candidate(value)
        parts.append(name + "=" + _text_sha(value))
    parts += ["image=" + (sha if image_sha256 is not None else _image_sha(sha))
              for sha in (image_sha256 if image_sha256 is not None else images)]
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
    def __init__(self, config: JudgeConfig):
        if config.response_format not in RESPONSE_FORMATS:
            raise ValueError(f"response_format must be one of {RESPONSE_FORMATS}")
        self.config = config
        headers = {"Content-Type": "application/json"}
        if config.api_key:
            headers["Authorization"] = f"Bearer {config.api_key}"
        # one event loop + connection pool for every request of this judge (run's batches and judge_one
        # from a caller's threads alike): at most `concurrency` in flight
        self.transport = AsyncChatTransport(config.base_url, headers, config.timeout, config.concurrency)
        self.cache = JudgeCache(config.cache_path)
        self.stats = JudgeStats()
        self._lock = threading.Lock()
        self.prompts_used: dict[str, str] = {}
        self._inflight: dict[str, threading.Event] = {}
        self._settings_digests: dict[int, tuple[dict | None, str]] = {}
        self._headers: dict[tuple[int, int], tuple[Prompt, dict | None, str]] = {}
        self._item_hash: tuple | None = None  # (item, prompt, schema, sha256 of header + item digest)

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

    def _count(self, name: str, increment: int = 1) -> None:
        with self._lock:
            setattr(self.stats, name, getattr(self.stats, name) + increment)

    def _key(self, call: JudgeCall, schema: dict | None) -> tuple[str, bool]:
        """The cache key, from stable parts hashed once each: the request settings (once per judge and
        schema), the prompt's id and text hash, every variable's text (the candidate as quoted, so a
        redaction change is a new key) and every image's SHA-256. The criteria of one case share all
        but one part, and those digests are memoised, so a key costs one small hash, not a rendered
        prompt + json.dumps + a hash of the whole request (a 50,000-call rescore spent most of its time there)."""
        if call.item is not None:  # shared part hashed once per item: only the rest is hashed here
            names, digest, flagged = call.item
            memo = self._item_hash  # an item's calls come one after another: its hashed prefix is reused
            if memo is None or memo[0] is not call.item or memo[1] is not call.prompt or memo[2] is not schema:
                prefix = hashlib.sha256(self._header(call.prompt, schema).encode())
                prefix.update(b"\nitem=" + digest.encode())
                memo = self._item_hash = (call.item, call.prompt, schema, prefix)
            h = memo[3].copy()
            _hash_rest(h, {n: v for n, v in call.variables.items() if n not in names})
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

    def item_keys(self, prompt: Prompt, schema: dict | None, item: tuple[tuple[str, ...], str, bool],
                  name: str, values: list[str]) -> list[str]:
        """The cache keys `_key` gives the calls of one item (`item` from item_digest) whose only other
        variable `name` takes each of `values`, without building the calls: the item's prefix hashed once,
        then one small hash per value (as `_hash_rest` adds a single variable)."""
        prefix = hashlib.sha256(self._header(prompt, schema).encode())
        prefix.update(b"\nitem=" + item[1].encode())
        head = b"\n" + name.encode()
        keys = []
        for value in values:
            data = value.encode()
            h = prefix.copy()
            h.update(head + b"=%d:" % len(data) + data)
            keys.append(h.hexdigest())
        return keys

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

    def judge_one(self, call: JudgeCall, parse: Callable[[str], dict], schema: dict | None = None) -> JudgeVerdict:
        """One verdict, synchronously (callers with their own threads, e.g. a parser per call)."""
        key, flagged = self._key(call, schema)
        with self._lock:
            self.prompts_used[call.prompt.id] = call.prompt.sha
            self.stats.flagged += flagged
        with self._lock:  # single flight: identical requests running at once share one HTTP call
            leader = key not in self._inflight
            event = self._inflight.setdefault(key, threading.Event())
        if not leader:
            event.wait()
        try:
            return self._judge_uncached(call, parse, key, schema, flagged)
        finally:
            self.cache.flush()  # a call on its own is written at once; `run` flushes per batch
            if leader:
                with self._lock:
                    self._inflight.pop(key, None)
                event.set()

    def _judge_uncached(self, call: JudgeCall, parse, key: str, schema: dict | None, flagged: bool) -> JudgeVerdict:
        hit = self.cache.get(key)
        if hit is None and self.cache.has_legacy_rows():
            hit = self._legacy_hit(call, schema, key)
        if hit is not None:
            with self._lock:
                self.stats.cache_hits += 1
            return JudgeVerdict(call.key, hit[1], hit[0], cached=True, flagged_injection=flagged)
        return self.transport.call(self._ask(call, parse, key, schema, flagged))

    async def _ask(self, call: JudgeCall, parse: Callable[[str], dict], key: str, schema: dict | None,
                   flagged: bool) -> JudgeVerdict:
        """Ask the endpoint (on the transport's loop, holding one of its `concurrency` slots): transient
        faults are retried by the transport, an unparseable answer is re-asked with a repair message, each
        up to `max_retries` times. A verdict that parsed is cached; anything else is a failure."""
        error = ""
        async with self.transport.slots:
            messages, _ = self._messages(call)  # images inlined only now, on a miss, one slot at a time
            body = self._body(messages, schema)
            attempt_body = body
            for repair in range(self.config.max_retries + 1):
                try:
                    payload = await self.transport.post(attempt_body, self.config.max_retries, self.config.backoff_base,
                                                        self.config.backoff_max, self._count)
                except ChatRequestError as exc:
                    error = f"judge endpoint {exc}"
                    break
                raw = payload["choices"][0]["message"].get("content") or ""
                try:
                    parsed = parse(raw)
                except (JudgeParseError, ValueError, KeyError, TypeError) as exc:
                    error = f"unparseable judge answer: {str(exc)[:120]}"
                    self._count("repairs")
                    attempt_body = {**body, "messages": messages + [
                        {"role": "assistant", "content": raw[:4000]},
                        {"role": "user", "content": REPAIR.format(error=error)}]}
                    continue
                self.cache.put(key, raw, parsed)
                return JudgeVerdict(call.key, parsed, raw, flagged_injection=flagged)
        self._count("failures")
        return JudgeVerdict(call.key, None, error=error or "judge failed", flagged_injection=flagged)

    def run(self, calls: list[JudgeCall], parse: Callable[[str], dict], schema: dict | None = None,
            progress: bool = False, desc: str = "judging") -> list[JudgeVerdict]:
        """Verdicts in the order of `calls`, computed with at most `concurrency` requests in flight.
        Cached verdicts are answered here in one batched lookup; only misses are asked, by `concurrency`
        workers on the transport's event loop (no thread per request in flight)."""
        if not calls:
            return []
        keyed = [self._key(call, schema) for call in calls]
        hits = self.cache.get_many([key for key, _ in keyed])
        if len(hits) < len(keyed) and self.cache.has_legacy_rows():
            self._migrate_legacy(calls, keyed, hits, schema)
        verdicts: list[JudgeVerdict | None] = [None] * len(calls)
        misses = []
        hit_count = flagged_count = 0
        for index, (call, (key, flagged)) in enumerate(zip(calls, keyed)):
            flagged_count += flagged
            found = hits.get(key)
            if found is not None:
                verdicts[index] = JudgeVerdict(call.key, found[1], found[0], cached=True, flagged_injection=flagged)
                hit_count += 1
            else:
                misses.append(index)
        with self._lock:  # once per run, not per call
            for prompt in {id(call.prompt): call.prompt for call in calls}.values():
                self.prompts_used[prompt.id] = prompt.sha
            self.stats.cache_hits += hit_count
            self.stats.flagged += flagged_count
        if misses:
            from tqdm.auto import tqdm  # only when something is asked

            bar = tqdm(total=len(calls), initial=len(calls) - len(misses), desc=desc, unit="call",
                       disable=not progress)
            try:
                self.transport.call(self._ask_misses(calls, misses, keyed, verdicts, parse, schema, bar))
            finally:
                self.cache.flush()  # the last partial batch of verdicts
                bar.close()
        return verdicts

    def lookup(self, keys: list[str], prompts: list[Prompt], flagged: list[bool] | None = None) -> list[dict | None]:
        """The cached verdict (its parsed value) of each cache key — keys from `item_keys` —, None where there
        is none; nothing is asked. Hits are counted as `run` counts them (the caller passes the misses to
        `run`, which counts those), `flagged[i]` saying whether key i's candidate was flagged; `prompts` are
        the prompts the keys were made with (recorded as used). Values, not JudgeVerdicts: a rescore looks
        up 50,586 criteria and needs only each one's value."""
        values = self.cache.values_many(keys)
        hit_count = len(values) - values.count(None)
        flagged_count = sum(1 for value, flag in zip(values, flagged) if flag and value is not None) if flagged else 0
        with self._lock:
            for prompt in prompts if keys else ():  # as `run`, which records nothing for no call
                self.prompts_used[prompt.id] = prompt.sha
            self.stats.cache_hits += hit_count
            self.stats.flagged += flagged_count
        return values

    async def _ask_misses(self, calls: list[JudgeCall], misses: list[int], keyed: list, verdicts: list,
                          parse: Callable[[str], dict], schema: dict | None, bar) -> None:
        """`concurrency` workers on the loop, each asking one distinct key at a time (identical requests
        in one run are asked once: the others get the verdict as a cache hit, or the same failure)."""
        by_key: dict[str, list[int]] = {}
        for index in misses:
            by_key.setdefault(keyed[index][0], []).append(index)
        todo = iter(by_key.values())

        async def worker() -> None:
            for indexes in todo:
                first = indexes[0]
                key, flagged = keyed[first]
                verdict = await self._ask(calls[first], parse, key, schema, flagged)
                verdicts[first] = verdict
                for index in indexes[1:]:
                    verdicts[index] = JudgeVerdict(calls[index].key, verdict.value, verdict.raw, verdict.error,
                                                   cached=verdict.ok, flagged_injection=flagged)
                    self._count("cache_hits" if verdict.ok else "failures")
                bar.update(len(indexes))

        await asyncio.gather(*(worker() for _ in range(min(self.config.concurrency, len(by_key)) or 1)))

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

    def with_model(self, model: str) -> "Judge":
        """A second judge on the same endpoint (protocols with two judges) sharing the cache file."""
        return Judge(replace(self.config, model=model))

    def close(self) -> None:
        self.transport.close()
        self.cache.close()


def _hash_rest(h, rest: dict[str, str]) -> None:
    """Adds the variables an item's calls do not share (in name order) to a key's hash, length-prefixed:
    unambiguous whatever the text holds."""
    for name in sorted(rest) if len(rest) > 1 else rest:
        value = rest[name].encode()
        h.update(b"\n%s=%d:" % (name.encode(), len(value)) + value)


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


_DECODER = json.JSONDecoder()
_FENCE = re.compile(r"```(?:json)?")


def parse_json_object(raw: str) -> dict:
    """The first JSON object in the text (fenced code allowed); JudgeParseError otherwise. Parsed by json,
    not orjson: orjson reads an integer past 64 bits as a float."""
    text = (_FENCE.sub("", raw) if "```" in raw else raw).strip()  # one decoder, a fence scan only when fenced
    start = text.find("{")
    if start < 0:
        raise JudgeParseError("no JSON object")
    try:
        value, _ = _DECODER.raw_decode(text[start:])
    except ValueError as exc:
        raise JudgeParseError(f"invalid JSON ({exc})") from None
    if not isinstance(value, dict):
        raise JudgeParseError("not a JSON object")
    return value

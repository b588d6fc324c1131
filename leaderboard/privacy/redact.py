"""Secrets and hosts never reach a public record.

Identities of scoring services (ICD coder, embedder, judges) are built in several places and are
recorded in a result's protocol; everything public passes through `public_value` when the record is
made public (`Result.to_public_dict`), so this is the one choke point:
- keys that name a secret (api key in any spelling: X-Api-Key, x-goog-api-key; token, password, client
  secret, authorization, cookie, headers...) are dropped;
- a judge or any service `endpoint` is dropped: a judge is shown by its model name only;
- a `base_url`/`url` keeps only scheme and host when the host is a public API (the WHO cloud),
  otherwise it reads "self-hosted"; credentials, ports, paths and query strings never stay;
- a local `model_path` keeps its folder name only (no server paths);
- free text (notes, pending reasons, decisions) loses URLs' credentials, query and host, `user:pass@`,
  `name: value` / `name=value` / JSON secrets, bearer tokens and provider key shapes (sk-, hf_, AIza...).
The cases live in tests/hostile/secrets.jsonl. Every pattern runs on RE2 (linear in the text).
"""
from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import re2

PUBLIC_HOSTS = frozenset({"id.who.int", "icd.who.int"})  # public APIs whose name says what was used
SELF_HOSTED = "self-hosted"
HIDDEN = "[hidden]"
# Names of secrets, spelled with "_" (a key's "-" and case are folded first). Whole names only:
# `max_tokens` or `prompt_tokens` are settings and counts, `key` alone is often an id.
_SECRET_NAME = (r"(?:[a-z0-9]+_)*(?:api_?key|apikey|(?:access|secret|private|subscription|signing|encryption|master|"
                r"auth|account)_?key|[a-z0-9]*_?token|client_?secret|secret|password|passwd|pwd|passphrase|"
                r"authori[sz]ation|auth|credentials?|cookies?|set_cookie|headers|session_?id)")
SECRET_KEY = re2.compile(r"^" + _SECRET_NAME + r"$")
ENDPOINT_KEYS = frozenset({"endpoint", "endpoints", "host", "hostname"})
URL_KEYS = frozenset({"base_url", "url", "token_url", "who_base_url", "judge_base_url"})
PATH_KEYS = frozenset({"model_path", "cache_dir", "path"})

URL_IN_TEXT = re2.compile(r"(?i)\b[a-z][a-z0-9+.-]*://[^\s\"'<>]+")
# `user:pass@host` without a scheme: the credentials go, the host's first character is put back
USERINFO_IN_TEXT = re2.compile(r"\b[\w.%+-]+:[^\s@/]+@([\w.-])")
# `name: value`, `name=value`, `"name": "value"`, `X-Api-Key: value` (names as above, any case, - or _);
# sig/signature/key only in the query form (`key=...`): "Signature: Dr Lee" and "key findings: ..." are notes
_NAME_IN_TEXT = _SECRET_NAME.replace("_?", "[_-]?").replace("_)", "[_-])").replace("set_cookie", "set[_-]cookie")
SECRET_IN_TEXT = re2.compile(r"(?i)(\b" + _NAME_IN_TEXT + r"[\"']?\s*[:=]\s*[\"']?|\b(?:sig|signature|key)=)"
                             r"([^\s\"'&,;<>]+)")
# a credential holds a digit or one of + / = ("Basic metabolic panel" is not one)
BEARER_IN_TEXT = re2.compile(r"(?i)\b(Bearer|Basic|Token)\s+[A-Za-z._~-]*[0-9+/=][A-Za-z0-9._~+/=-]{4,}")
# a scheme word after a secret's name ("Authorization: Basic dXNlcjpwYXNz"): what follows is the credential even
# without a digit (base64 of "user:pass" has none); an already hidden one is hidden again, unchanged
SCHEME_AFTER_NAME = re2.compile(r"(?i)(\b" + _NAME_IN_TEXT + r"[\"']?\s*[:=]\s*[\"']?(?:Bearer|Basic|Token)\s+)"
                                r"[^\s\"'&,;<>]+")
# provider key shapes, wherever they stand
KEY_SHAPES = re2.compile(r"\b(?:sk-[A-Za-z_-]*[0-9][A-Za-z0-9_-]{7,}|hf_[A-Za-z0-9]{10,}|"
                         r"AIza[0-9A-Za-z_-]{20,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|"
                         r"xox[abpors]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|glpat-[A-Za-z0-9_-]{20,}|"
                         r"ya29\.[A-Za-z0-9_-]{20,}|eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}|"
                         r"(?:r8|gsk|nvapi|pplx)[_-][A-Za-z0-9_-]{20,})")


def public_url(url: str) -> str:
    """scheme://host for a public API host, else 'self-hosted'; never credentials, port, path or query."""
    try:
        parts = urlsplit(str(url).strip())
        host = (parts.hostname or "").lower()
    except ValueError:
        return SELF_HOSTED
    if host in PUBLIC_HOSTS and parts.scheme in ("http", "https"):
        return f"{parts.scheme}://{host}"
    return SELF_HOSTED


def public_text(text: str) -> str:
    text = URL_IN_TEXT.sub(lambda m: public_url(m.group(0)), text)
    text = USERINFO_IN_TEXT.sub(r"\1", text)
    text = BEARER_IN_TEXT.sub(lambda m: f"{m.group(1)} {HIDDEN}", text)
    text = SECRET_IN_TEXT.sub(_hide_value, text)
    text = SCHEME_AFTER_NAME.sub(lambda m: m.group(1) + HIDDEN, text)
    return KEY_SHAPES.sub(HIDDEN, text)


def _hide_value(match) -> str:
    value = match.group(2)
    if value.lower() in ("bearer", "basic", "token", HIDDEN):  # "Authorization: Bearer [hidden]" is done
        return match.group(0)
    return match.group(1) + HIDDEN


def is_secret_key(name: str) -> bool:
    return SECRET_KEY.search(str(name).lower().replace("-", "_")) is not None


def public_value(value: Any, key: str | None = None) -> Any:
    """`value` with secrets, hosts and server paths removed (recursively)."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            name = str(k).lower()
            if is_secret_key(name) or name in ENDPOINT_KEYS:
                continue
            out[k] = public_value(v, name)
        return out
    if isinstance(value, (list, tuple)):
        return [public_value(v, key) for v in value]
    if isinstance(value, str):
        if key in URL_KEYS:
            return public_url(value)
        if key in PATH_KEYS:
            return value.rstrip("/\\").replace("\\", "/").rsplit("/", 1)[-1]
        return public_text(value)
    return value

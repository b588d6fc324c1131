"""Secrets and hosts never reach a public record.

Identities of scoring services (ICD coder, embedder, judges) are built in several places and are
recorded in a result's protocol; everything public passes through `public_value` when the record is
made public (`Result.to_public_dict`), so this is the one choke point:
- keys that name a secret (api key, token, password, client secret, authorization) are dropped;
- a judge or any service `endpoint` is dropped: a judge is shown by its model name only;
- a `base_url`/`url` keeps only scheme and host when the host is a public API (the WHO cloud),
  otherwise it reads "self-hosted"; credentials, ports, paths and query strings never stay;
- a local `model_path` keeps its folder name only (no server paths);
- any URL inside free text (notes, pending reasons, decisions) loses credentials, query and host.
"""
from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

PUBLIC_HOSTS = frozenset({"id.who.int", "icd.who.int"})  # public APIs whose name says what was used
SELF_HOSTED = "self-hosted"
# whole key names only: `max_tokens` or `prompt_tokens` are settings and counts, not secrets
SECRET_KEY = re.compile(r"^(\w*api[_-]?key|\w*_?token|client[_-]?secret|secret|password|passwd|"
                        r"authori[sz]ation|credentials?|cookie|headers)$", re.I)
ENDPOINT_KEYS = frozenset({"endpoint", "endpoints", "host", "hostname"})
URL_KEYS = frozenset({"base_url", "url", "token_url", "who_base_url", "judge_base_url"})
PATH_KEYS = frozenset({"model_path", "cache_dir", "path"})
URL_IN_TEXT = re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s\"'<>]+", re.I)
# `user:pass@host` without a scheme, and `key=...`-style secrets in free text
USERINFO_IN_TEXT = re.compile(r"\b[\w.%+-]+:[^\s@/]+@(?=[\w.-]+)")
SECRET_IN_TEXT = re.compile(r"\b(api[_-]?key|access[_-]?token|token|key|secret|password|sig|signature)=[^\s&\"']+",
                            re.I)
BEARER_IN_TEXT = re.compile(r"\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}", re.I)


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
    text = USERINFO_IN_TEXT.sub("", text)
    text = SECRET_IN_TEXT.sub(lambda m: f"{m.group(1)}=[hidden]", text)
    return BEARER_IN_TEXT.sub(lambda m: f"{m.group(1)} [hidden]", text)


def public_value(value: Any, key: str | None = None) -> Any:
    """`value` with secrets, hosts and server paths removed (recursively)."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            name = str(k).lower()
            if SECRET_KEY.search(name) or name in ENDPOINT_KEYS:
                continue
            out[k] = public_value(v, name)
        return out
    if isinstance(value, (list, tuple)):
        return [public_value(v, key) for v in value]
    if isinstance(value, str):
        if key in URL_KEYS:
            return public_url(value)
        if key in PATH_KEYS:
            return re.split(r"[\\/]", value.rstrip("/\\"))[-1]
        return public_text(value)
    return value

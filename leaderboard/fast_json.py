"""JSON through orjson (Gradio's own dependency, pinned in requirements.txt) where it can, json where only
json can: orjson parses stored records and response bodies 2-3x faster and writes request bodies ~5x faster,
but refuses NaN/Infinity on reading and integers past 64 bits on writing, which json accepts."""
from __future__ import annotations

import json

try:
    import orjson
except ImportError:  # pragma: no cover - the standard library does the same, slower
    orjson = None


def loads(raw: bytes):
    if orjson is not None:
        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError:
            pass
    return json.loads(raw)


def dumps(value) -> bytes:
    """UTF-8 JSON, non-ASCII text as itself (not escaped)."""
    if orjson is not None:
        try:
            return orjson.dumps(value)
        except TypeError:  # an integer past 64 bits (a seed, say)
            pass
    return json.dumps(value, ensure_ascii=False).encode()

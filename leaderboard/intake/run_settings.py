"""The run settings `predict` writes beside a prediction file (`PRED.meta.json`), reduced to what a
leaderboard may show: model id, protocol name/version/prompt hash, decoding, run counts. Endpoints and
keys are never kept; text is cleaned and capped (it is user-supplied)."""
from __future__ import annotations

import json
from pathlib import Path

MAX_BYTES = 256_000  # kB = 1000 bytes, like every limit


class RunSettingsError(ValueError):
    pass


def _text(value, limit: int = 120) -> str | None:
    if value is None:
        return None
    return one_line(str(value))[:limit] or None


# control characters, angle brackets, the bidi overrides / zero-width marks that can disguise text, and
# unpaired surrogates (not storable as UTF-8): each becomes a space. A translate table: linear, no regex.
_UNSAFE = dict.fromkeys([*range(0x00, 0x20), *range(0x7F, 0xA0), ord("<"), ord(">"), *range(0x200B, 0x2010),
                         *range(0x202A, 0x202F), *range(0x2060, 0x206A), 0xFEFF, *range(0xD800, 0xE000)], " ")


def one_line(text: str) -> str:
    """Plain one-line text: unsafe characters (above) become spaces, whitespace runs one space, stripped."""
    return " ".join(text.translate(_UNSAFE).split())


def _number(value):
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def read_run_settings(path: Path) -> dict:
    path = Path(path)
    if path.stat().st_size > MAX_BYTES:
        raise RunSettingsError(f"run settings file is over {MAX_BYTES // 1000} kB")
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise RunSettingsError(f"run settings file is not valid JSON ({str(exc)[:80]})") from None
    except RecursionError:
        raise RunSettingsError("run settings file is not valid JSON (nested too deeply)") from None
    if not isinstance(data, dict) or not isinstance(data.get("protocol"), dict):
        raise RunSettingsError("run settings file is not a `predict` metadata file (no `protocol` object)")
    protocol, request = data["protocol"], data.get("request") or {}
    runs = [r for r in data.get("runs") or [] if isinstance(r, dict)]
    return {
        "benchmark": _text(data.get("benchmark"), 40),
        "model": _text(data.get("model")),
        "protocol": _text(protocol.get("name"), 40),
        "protocol_version": _text(protocol.get("version"), 20),
        "prompt_sha": _text(protocol.get("prompt_sha"), 40),
        "variant": _text(protocol.get("variant")),
        "temperature": _number(request.get("temperature")) if isinstance(request, dict) else None,
        "max_tokens": _number(request.get("max_tokens")) if isinstance(request, dict) else None,
        "runs": len(runs),
        "tasks_failed": sum(int(_number(r.get("tasks_failed")) or 0) for r in runs),
    }


def describe(settings: dict | None) -> str:
    """One short line for a table cell."""
    if not settings:
        return ""
    parts = [f"{settings.get('protocol') or '?'} v{settings.get('protocol_version') or '?'}"]
    if settings.get("temperature") is not None:
        parts.append(f"T={settings['temperature']}")
    if settings.get("prompt_sha"):
        parts.append(f"prompt {settings['prompt_sha']}")
    return ", ".join(parts)

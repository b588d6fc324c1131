"""LLM judges over OpenAI-compatible endpoints: client, cache, versioned prompts, injection safety."""
from .cache import item_digest, judge_key
from .client import (Judge, JudgeCall, JudgeConfig, JudgeParseError, JudgeVerdict, item_key_id, judge_configured,
                     parse_json_object)
from .prompts import Prompt, load_prompt

_SAFETY = ("find_injection", "quote_candidate", "redact")  # the injection detector: imported when first named


def __getattr__(name: str):
    if name in _SAFETY:
        from . import safety

        return getattr(safety, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

NO_JUDGE = "LLM judge not configured: set JUDGE_BASE_URL and JUDGE_MODEL (or --judge-base-url/--judge-model)"

__all__ = ["Judge", "JudgeCall", "JudgeConfig", "judge_configured", "JudgeParseError", "JudgeVerdict", "item_digest", "item_key_id", "judge_key", "parse_json_object", "Prompt",
           "load_prompt", "find_injection", "quote_candidate", "redact", "NO_JUDGE"]

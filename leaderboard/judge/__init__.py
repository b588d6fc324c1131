"""LLM judges over OpenAI-compatible endpoints: client, cache, versioned prompts, injection safety."""
from .cache import item_digest, judge_key
from .client import Judge, JudgeCall, JudgeConfig, JudgeParseError, JudgeVerdict, item_key_id, parse_json_object
from .prompts import Prompt, load_prompt
from .safety import find_injection, quote_candidate, redact

NO_JUDGE = "LLM judge not configured: set JUDGE_BASE_URL and JUDGE_MODEL (or --judge-base-url/--judge-model)"

__all__ = ["Judge", "JudgeCall", "JudgeConfig", "JudgeParseError", "JudgeVerdict", "item_digest", "item_key_id", "judge_key", "parse_json_object", "Prompt",
           "load_prompt", "find_injection", "quote_candidate", "redact", "NO_JUDGE"]

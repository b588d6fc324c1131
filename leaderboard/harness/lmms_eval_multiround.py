"""`python -m leaderboard.harness.lmms_eval_multiround eval --model openai_compatible ...`: lmms-eval's own command
line, with one addition: multi-round tasks (`output_type: generate_until_multi_round`) for the
`openai_compatible` backend, which lmms-eval 0.7.3 leaves unimplemented (`NotImplementedError`).

Run it in the lmms-eval environment (`.venv-lmms`), not the project's. The loop is the one lmms-eval's vllm
chat backend runs (`lmms_eval/models/chat/vllm.py`): round 0 asks the task's `doc_to_messages(doc)`, round k
asks `doc_to_messages(doc, round_idx=k, previous_output=[replies so far], ...)` until it answers terminal;
each round is one chat request built exactly like the backend's single-turn requests (same message
encoding, model, max_tokens, temperature, top_p, retries). A round whose request failed ends that
conversation (later turns would carry a failure text as the model's answer). This is the piece to send
upstream as `OpenAICompatible.generate_until_multi_round`.
"""
from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

FAILED = "[LMMS_EVAL_REQUEST_FAILED"


def _payload(model, messages: list[dict], gen_kwargs: dict) -> dict:
    from lmms_eval.models.simple.openai import _get_max_new_tokens
    from lmms_eval.protocol import ChatMessages

    payload = {"messages": ChatMessages(messages=messages).to_openai_messages(), "model": model.model_version,
               "max_tokens": _get_max_new_tokens(gen_kwargs), "temperature": gen_kwargs.get("temperature", 0)}
    for parameter in ("top_p", "seed", "presence_penalty", "frequency_penalty"):
        if gen_kwargs.get(parameter) is not None:
            payload[parameter] = gen_kwargs[parameter]
    return payload


def _ask(model, payload: dict) -> str:
    last = "unknown error"
    for attempt in range(model.max_retries):
        try:
            response = model.client.chat.completions.create(**payload)
            return response.choices[0].message.content or ""
        except Exception as exc:  # the backend's own policy: retry anything, then report the failure as text
            last = str(exc).replace("\n", " ")[:200]
            if attempt < model.max_retries - 1:
                time.sleep(model.retry_backoff_s)
    return f"{FAILED} after {model.max_retries} retries] {last}"


def _conversation(model, request) -> list[str]:
    _, doc_to_messages, gen_kwargs, doc_id, task, split = request.args
    doc = model.task_dict[task][split][doc_id]
    replies: list[str] = []
    info = None
    messages = doc_to_messages(doc)
    while messages is not None:
        reply = _ask(model, _payload(model, messages, dict(gen_kwargs)))
        replies.append(reply)
        if reply.startswith(FAILED):
            break
        step = doc_to_messages(doc, round_idx=len(replies), previous_output=list(replies), previous_round_info=info)
        if not (isinstance(step, tuple) and len(step) == 4) or step[1]:
            break
        messages, _, _, info = step
    return replies


def generate_until_multi_round(self, requests) -> list[list[str]]:
    """One conversation per request (conversations run concurrently, rounds in order); per-round replies."""
    with ThreadPoolExecutor(max_workers=max(1, int(self.num_concurrent))) as pool:
        return list(pool.map(lambda request: _conversation(self, request), requests))


def main() -> None:
    from lmms_eval.cli.dispatch import main as lmms_eval_main
    from lmms_eval.models.chat.openai import OpenAICompatible

    OpenAICompatible.generate_until_multi_round = generate_until_multi_round
    lmms_eval_main()  # the same entry point as `python -m lmms_eval`


if __name__ == "__main__":
    main()

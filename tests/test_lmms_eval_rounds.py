"""The multi-round task hooks without lmms-eval (seconds, always run): driving `doc_to_messages` the way
lmms-eval's multi-round loop does yields, round by round, exactly the conversation `predict` sends (every
earlier turn, image and reply), ends when predict's conversation ends, and `process_results` writes predict's
lines. The end-to-end run through lmms-eval itself is tests/test_lmms_eval_tasks.py."""
import base64
import hashlib
import importlib.util
import io

import datasets
import pytest
from PIL import Image

from benchmarks.clinmm.protocol import run_case
from benchmarks.xpcr.protocol import run_chain
from conftest import ROOT
from leaderboard.harness.lmms_eval_bridge import RECORD_KEY, raw_images
from predict_helpers import build_sample


def hooks(name):
    spec = importlib.util.spec_from_file_location(f"lmms_hooks_{name}", ROOT / "benchmarks" / name / "lmms_eval_task" / "utils.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def pixels(image: Image.Image) -> str:
    image = image.convert("RGBA")
    return hashlib.sha256(f"{image.size}".encode() + image.tobytes()).hexdigest()


def from_predict(messages):
    out = []
    for m in messages:
        parts = [{"type": "text", "text": m["content"]}] if isinstance(m["content"], str) else m["content"]
        out.append((m["role"], [("text", p["text"]) if p["type"] == "text" else
                                ("image", pixels(Image.open(io.BytesIO(base64.b64decode(p["image_url"]["url"].split(",", 1)[1])))))
                                for p in parts]))
    return out


def from_lmms(messages):
    return [(m["role"], [("text", p["text"]) if p["type"] == "text" else ("image", pixels(p["url"])) for p in m["content"]])
            for m in messages]


CASES = [("clinmm", "default", "doc_to_messages", "process_results",
          lambda chat, doc: [run_case(chat, doc["case_id"], doc, "en")]),
         ("clinmm", "default", "zh_doc_to_messages", "zh_process_results",
          lambda chat, doc: [run_case(chat, doc["case_id"], doc, "zh")]),
         ("xpcr", "chains", "chain_doc_to_messages", "chain_process_results", lambda chat, doc: run_chain(chat, doc))]


@pytest.mark.parametrize("name, config, to_messages, process, predict_run", CASES, ids=["clinmm", "clinmm_zh", "xpcr_chains"])
def test_rounds_are_predicts_conversation(tmp_path, name, config, to_messages, process, predict_run):
    hub = build_sample(name, tmp_path / "hub")
    module = hooks(name)
    docs = raw_images(datasets.load_dataset(str(hub), config, split="test", cache_dir=str(tmp_path / "cache")))
    for doc in list(docs)[:3]:
        sent = []

        def chat(messages, **overrides):
            sent.append(from_predict(messages))
            # predict's client hands the conversation the reply without its leading <think> block
            return f"Answer: A\nConfidence: 0.{len(sent)}\nFinal diagnosis: D{len(sent)}\nReasoning: R"

        expected_rows = predict_run(chat, doc)
        replies = []
        messages = getattr(module, to_messages)(doc)
        while True:
            assert from_lmms(messages) == sent[len(replies)], f"round {len(replies)} differs from predict"
            # lmms-eval hands back the raw reply; the hooks strip the <think> block as predict's client does
            replies.append(f"<think>x</think>Answer: A\nConfidence: 0.{len(replies) + 1}\n"
                           f"Final diagnosis: D{len(replies) + 1}\nReasoning: R")
            step = getattr(module, to_messages)(doc, round_idx=len(replies), previous_output=list(replies))
            if step[1]:
                assert step[0] is None
                break
            messages = step[0]
        assert len(replies) == len(sent) > 1
        record = getattr(module, process)(doc, [replies])[RECORD_KEY]
        assert record["rows"] == expected_rows and record["benchmark"] == name
        # fewer replies than rounds (a run cut short): nothing is written for the doc
        assert getattr(module, process)(doc, [replies[:-1]])[RECORD_KEY]["rows"] == []

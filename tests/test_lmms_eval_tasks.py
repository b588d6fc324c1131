"""The lmms-eval task folders (`benchmarks/<name>/lmms_eval_task/`), end to end with the real lmms-eval 0.7.3 in
its own environment (.venv-lmms): `python -m lmms_eval --model openai_compatible` runs every single-turn task
with --limit against the scripted OpenAI-compatible server on 127.0.0.1, and the multi-round tasks run through
`python -m leaderboard.harness.lmms_eval_multiround` (lmms-eval plus the openai backend's missing multi-round loop).
The logged samples are converted with `from-lmms-eval`, validated and scored by our CLI to hand-computed values,
and every request lmms-eval sent carries exactly the messages `predict` sends for the same item (texts, roles,
order; images compared by decoded pixels, since lmms-eval re-encodes them as PNG)."""
from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import re
import subprocess
from unittest import mock

import pytest
from PIL import Image

from benchmarks.medcmr.protocol import OPEN_PROMPT
from benchmarks.medrealmm.protocol import HEADER
from benchmarks.medreamm.protocol import SYSTEM as MEDREAMM_SYSTEM
from benchmarks.xpcr.protocol import CHAIN_SYSTEM, CROSS_SYSTEM
from benchmarks.xpcr.taxonomy import STAGES as STAGE_ORDER
from conftest import ROOT
from fake_openai_server import FakeOpenAIServer
from leaderboard.cli import main as cli_main
from predict_helpers import build_sample, lines, read_config, run as predict_run

LMMS_PYTHON = ROOT / ".venv-lmms" / "bin" / "python"
pytestmark = pytest.mark.skipif(not LMMS_PYTHON.is_file(),
                                reason=".venv-lmms is absent: create it with `bash scripts/setup-lmms.sh` "
                                       "(scripts/test.sh does, so CI never skips this)")
LIMIT = 3  # docs per single-turn task
CHAINS = 2  # docs per multi-round task
SINGLE_TASKS = "medreamm,medcmr,medrealmm,medrealmm_text_only,xpcr"  # medcmr and xpcr are groups
MULTI_TASKS = "clinmm,clinmm_zh,xpcr_chains"
NAMES = ("medreamm", "clinmm", "medrealmm", "medcmr", "xpcr")
QUESTION_NO = re.compile(r"Question (\d+) of (\d+):")


# ------------------------------------------------------------------ request canonical form
def pixels(url: str) -> str:
    """A data URL's image as decoded pixels (lmms-eval re-encodes to PNG; predict sends the original bytes)."""
    image = Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))).convert("RGBA")
    return hashlib.sha256(f"{image.size}".encode() + image.tobytes()).hexdigest()


def canonical(body: dict) -> str:
    """Roles, texts and images in order; a string content is one text part; image `detail` is not compared
    (lmms-eval has no such field)."""
    out = []
    for message in body["messages"]:
        content = message["content"]
        parts = [{"type": "text", "text": content}] if isinstance(content, str) else content
        out.append([message["role"], [["text", p["text"]] if p["type"] == "text" else ["image", pixels(p["image_url"]["url"])]
                                      for p in parts]])
    return json.dumps(out, ensure_ascii=False)


def first_text(message: dict) -> str:
    content = message["content"]
    return content if isinstance(content, str) else next(p["text"] for p in content if p["type"] == "text")


def all_texts(message: dict) -> str:
    content = message["content"]
    return content if isinstance(content, str) else "\n".join(p["text"] for p in content if p["type"] == "text")


def first_image(message: dict) -> str:
    return next(pixels(p["image_url"]["url"]) for p in message["content"] if p["type"] == "image_url")


def raw_pixels(cell: dict) -> str:
    return pixels("data:image/x;base64," + base64.b64encode(cell["bytes"]).decode())


# ------------------------------------------------------------------ the scripted model
class Script:
    """Deterministic replies from the request content alone, so lmms-eval and predict get the same answers
    (the multi-turn histories then match too)."""

    def __init__(self, hub):
        self.reamm = [r["medical_records"] for r in read_config(hub / "medreamm")]
        self.mcq = read_config(hub / "medcmr", "mcq")
        self.cases = read_config(hub / "xpcr", "cross_modal")
        self.chains = {raw_pixels(c["image"]): c for c in read_config(hub / "xpcr", "chains")}

    def __call__(self, body: dict) -> str:
        messages = body["messages"]
        head = first_text(messages[0])
        if head == MEDREAMM_SYSTEM:
            index = next(i for i, r in enumerate(self.reamm) if first_text(messages[1]).endswith(r))
            return ['### Output ###\n["Pneumonia", "Asthma"]',
                    '<think>draft\n\nmore</think>\n\nReasoning first.\n\n### Output ###\n["Tuberculosis"]',
                    "I cannot tell."][index] if index < 3 else "I cannot tell."
        if head == HEADER:
            return "请多喝水，注意休息。"
        if head == CROSS_SYSTEM:
            text = all_texts(messages[1])
            case = next(c for c in self.cases if text.startswith(f"Clinical vignette: {c['vignette']}"))
            k = next(k for k, item in enumerate(case["items"]) if f"Question:\n{item['question']}\n\nOptions:" in text)
            return f"Answer: {case['answers'][k]}\nConfidence: 85%"
        if head == CHAIN_SYSTEM:
            chain = self.chains[first_image(messages[1])]
            k = int(QUESTION_NO.search(all_texts(messages[-1])).group(1))
            ordered = sorted(zip(chain["items"], chain["answers"]), key=lambda p: STAGE_ORDER.index(p[0]["stage"]))
            return f"Answer: {ordered[k - 1][1]}\nConfidence: 0.9"
        text = all_texts(messages[-1])
        if "in the format 'Answer: X'" in text:
            index = next(i for i, r in enumerate(self.mcq) if text.startswith(r["question"] + "\n\nOptions:"))
            gold = self.mcq[index]["answer"]
            wrong = next(letter for letter in "ABCDE" if letter != gold)
            return {0: f"Answer: {gold}", 1: f"Answer: {wrong}",
                    2: f"<think>Maybe {wrong}?</think>\nAfter review:\n\nThe final answer is ({gold})."}.get(index, "Answer: Z")
        if text.endswith(OPEN_PROMPT.split("{question}")[1]):
            return "Step 1: the findings.\n\nFinal answer: an open answer"
        turn = sum(1 for m in messages if m["role"] == "user")
        return f"Turn {turn} noted.\nFinal diagnosis: Sarcoidosis\nReasoning: non-caseating granulomas on biopsy"


# ------------------------------------------------------------------ fixtures: one lmms-eval run each, one predict run
@pytest.fixture(scope="module")
def world(tmp_path_factory):
    work = tmp_path_factory.mktemp("lmms")
    hub = work / "hub"
    for name in NAMES:
        build_sample(name, hub)
    server = FakeOpenAIServer(Script(hub)).start()
    env = {**os.environ, "HF_HOME": str(work / "hf"), "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1",
           "OPENAI_API_KEY": "test-key", "PYTHONPATH": str(ROOT), "LMMS_IMAGE_ENCODE_FORMAT": "PNG"}
    common = ["--model", "openai_compatible", "--model_args", f"model=lmms-model,base_url={server.base_url},max_retries=2",
              "--include_path", str(ROOT / "benchmarks"), "--log_samples", "--output_path"]
    # both at once (the dataset tasks differ, so their files do not collide): lmms-eval's start-up is the slow part
    single = subprocess.Popen([str(LMMS_PYTHON), "-m", "lmms_eval", "eval", *common, str(work / "single"),
                               "--tasks", SINGLE_TASKS, "--limit", str(LIMIT)], cwd=work, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    multi = subprocess.Popen([str(LMMS_PYTHON), "-m", "leaderboard.harness.lmms_eval_multiround", "eval", *common,
                              str(work / "multi"), "--tasks", MULTI_TASKS, "--limit", str(CHAINS)], cwd=work, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    logs = {"single": single.communicate(timeout=900)[0], "multi": multi.communicate(timeout=900)[0]}
    assert single.returncode == 0, logs["single"][-4000:]
    assert multi.returncode == 0, logs["multi"][-4000:]
    lmms_bodies = list(server.requests)
    # predict on the same items and the same scripted model, for the message comparison
    with server.lock:
        server.requests.clear()
    for name, extra in [(n, ()) for n in NAMES] + [("medrealmm", ("--text-only",)), ("clinmm", ("--language", "zh"))]:
        out = work / "predict" / f"{'-'.join((name,) + extra)}.jsonl"
        assert predict_run(name, hub / name, server, out, *extra) == 0
    predict_bodies = list(server.requests)
    server.stop()
    return {"work": work, "hub": hub, "lmms": lmms_bodies, "predict": predict_bodies, "logs": logs}


def convert(world, name: str, *extra: str):
    out = world["work"] / "converted" / f"{name}{'-'.join(('',) + extra).replace(',', '_')}.jsonl"
    code = cli_main(["from-lmms-eval", str(world["work"] / "single"), str(world["work"] / "multi"),
                     "--benchmark", name, "--out", str(out), "--overwrite", *extra])
    return code, out


def score(world, name: str, pred) -> dict:
    result = pred.with_suffix(".result.json")
    assert cli_main(["validate", name, str(pred), "--data", str(world["hub"] / name)]) == 0
    # a --limit run scores a handful of items: publish every number (k = 1) so the hand-computed values show
    with mock.patch.dict(os.environ, {"LEADERBOARD_MIN_CELL": "1"}):
        assert cli_main(["score", name, str(pred), "--data", str(world["hub"] / name), "--json", str(result),
                         "--quiet", "--resamples", "0", "--icd-coder", "offline"]) == 0
    return json.loads(result.read_text(encoding="utf-8"))


# ------------------------------------------------------------------ tests
def test_every_request_lmms_eval_sent_is_one_predict_sends(world):
    """Texts, roles, order and images (as pixels) of each lmms-eval request equal predict's request for that item,
    multi-turn rounds included (each round carries the whole conversation with the model's own replies)."""
    sent_by_predict = {canonical(b) for b in world["predict"]}
    assert world["lmms"], "lmms-eval sent nothing"
    for body in world["lmms"]:
        assert body["model"] == "lmms-model"
        assert canonical(body) in sent_by_predict, f"lmms-eval sent a request predict never sends: {canonical(body)[:300]}"
    # how many: 3 docs x (medreamm, medcmr_mcq, medcmr_open_ended, medrealmm, medrealmm_text_only, xpcr_cross_modal,
    # xpcr_ablations) + one request per turn of the first 2 ClinMM cases (English and Chinese) and per item of the
    # first 2 X-PCR chains
    clinmm = read_config(world["hub"] / "clinmm")[:CHAINS]
    chains = read_config(world["hub"] / "xpcr", "chains")[:CHAINS]
    expected = 7 * LIMIT + 2 * sum(len(c["turns"]) for c in clinmm) + sum(len(c["items"]) for c in chains)
    assert len(world["lmms"]) == expected
    assert len({canonical(b) for b in world["lmms"]}) == expected  # no item asked twice


def test_request_settings_are_the_tasks_and_recorded_in_the_sidecar(world):
    cross = [b for b in world["lmms"] if first_text(b["messages"][0]) == CROSS_SYSTEM]
    chain = [b for b in world["lmms"] if first_text(b["messages"][0]) == CHAIN_SYSTEM]
    assert {(b["temperature"], b["top_p"], b["max_tokens"]) for b in cross} == {(0.0, 1.0, 16384)}
    assert {(b["temperature"], b["top_p"], b["max_tokens"]) for b in chain} == {(0.0, 1.0, 256)}
    code, pred = convert(world, "xpcr")
    assert code == 0
    meta = json.loads(pred.with_name(pred.name + ".meta.json").read_text(encoding="utf-8"))
    assert meta["model"] == "lmms-model" and "127.0.0.1" not in json.dumps(meta)  # endpoints never kept
    assert meta["harness"]["name"] == "lmms-eval" and meta["harness"]["version"] == "0.7.3"
    assert meta["harness"]["tasks"] == ["xpcr_ablations", "xpcr_chains", "xpcr_cross_modal"]
    assert meta["request"]["per_task"]["xpcr_chains"] == {"temperature": 0.0, "max_tokens": 256, "top_p": 1.0}
    assert "max_tokens" not in meta["request"]  # differs per task
    from benchmarks.xpcr.protocol import XPCRProtocol
    from leaderboard.harness.lmms_eval_bridge import protocol_settings
    assert meta["protocol"] == {**protocol_settings(XPCRProtocol(), no_ablations=False), "runner": "lmms-eval"}


def test_medreamm_lines_strip_thinking_keep_blank_lines_and_score(world):
    code, pred = convert(world, "medreamm")
    assert code == 0
    ids = [r["case_id"] for r in read_config(world["hub"] / "medreamm")]
    assert lines(pred) == [
        {"id": ids[0], "response": '### Output ###\n["Pneumonia", "Asthma"]'},
        {"id": ids[1], "response": 'Reasoning first.\n\n### Output ###\n["Tuberculosis"]'},  # not cut at "\n\n"
        {"id": ids[2], "response": "I cannot tell."},
    ]
    result = score(world, "medreamm", pred)
    # 3 of the 10 cases answered; "I cannot tell." names no diagnosis: one parse failure
    assert (result["n_items"], result["n_answered"], result["parse_failures"]) == (10, 3, 1)
    assert result["protocol"]["run_settings"]["prompt_sha"] == "8137f4bbb6dd"  # predict's prompt hash


def test_medcmr_mcq_accuracy_hand_computed_and_preview_labelled(world, capsys):
    code, pred = convert(world, "medcmr")
    assert code == 0
    printed = capsys.readouterr().out
    # lmms-eval's own aggregate of the 3 MCQs it ran: 2 correct -> 66.67, shown as a preview only
    assert "quick preview" in printed and "medcmr_mcq preview_mcq_accuracy = 66.67" in printed
    result = score(world, "medcmr", pred)
    # MCQ 1 gold, MCQ 2 another letter, MCQ 3 gold after a think block: 2 correct of all 21 MCQs = 9.5238
    assert result["metrics"]["mcq_all"] == pytest.approx(200 / 21, abs=1e-4)  # metrics are rounded to 4 decimals
    assert len(read_config(world["hub"] / "medcmr", "mcq")) == 21
    assert result["n_answered"] == 6  # 3 MCQ + 3 open-ended (judged: pending without a judge)
    assert "open_all" in result["pending"]


def test_medrealmm_variants_convert_separately_with_input_modality(world):
    code, _ = convert(world, "medrealmm")
    assert code == 2  # both variants in one run: refused, they would share ids
    for task, modality in (("medrealmm", "multimodal"), ("medrealmm_text_only", "text-only")):
        code, pred = convert(world, "medrealmm", "--tasks", task)
        assert code == 0
        rows = lines(pred)
        assert [r["input_modality"] for r in rows] == [modality] * LIMIT
        assert {r["response"] for r in rows} == {"请多喝水，注意休息。"}
        result = score(world, "medrealmm", pred)
        assert (result["n_items"], result["n_answered"]) == (7, 3)


def test_xpcr_cross_modal_chains_and_ablations_score_to_hand_computed_values(world):
    code, pred = convert(world, "xpcr")
    assert code == 0
    rows = {r["id"]: r for r in lines(pred)}
    cases = read_config(world["hub"] / "xpcr", "cross_modal")
    chains = read_config(world["hub"] / "xpcr", "chains")
    cross_ids = [item["item_id"] for case in cases for item in case["items"]]
    ablation_ids = [a["id"] for a in read_config(world["hub"] / "xpcr", "ablations")]
    chain_ids = [item["item_id"] for chain in chains[:CHAINS] for item in chain["items"]]
    assert set(rows) == set(cross_ids[:LIMIT]) | set(ablation_ids[:LIMIT]) | set(chain_ids)
    assert {rows[i]["confidence"] for i in cross_ids[:LIMIT]} == {0.85}  # "85%"
    assert rows[ablation_ids[0]]["removed_modality"] == ablation_ids[0].split("/without-")[1]
    result = score(world, "xpcr", pred)
    # every answered item is answered with its gold letter: cross-modal accuracy = 3 / all cross-modal items
    assert result["metrics"]["XM_All"] == pytest.approx(300 / len(cross_ids), abs=1e-4)
    # chain stages: accuracy per stage = answered items of that stage / all chain items of that stage
    per_stage = {s: (sum(i["stage"] == s for c in chains[:CHAINS] for i in c["items"]),
                     sum(i["stage"] == s for c in chains for i in c["items"])) for s in STAGE_ORDER}
    for stage, (answered, total) in per_stage.items():
        assert result["metrics"][stage] == pytest.approx(100 * answered / total, abs=1e-4), stage


@pytest.mark.parametrize("task", ["clinmm", "clinmm_zh"])
def test_clinmm_turn_by_turn_replies_and_final_split(world, task):
    assert convert(world, "clinmm")[0] == 2  # both languages in one run share ids: refused without --tasks
    code, pred = convert(world, "clinmm", "--tasks", task)
    assert code == 0
    meta = json.loads(pred.with_name(pred.name + ".meta.json").read_text(encoding="utf-8"))
    assert meta["protocol"]["language"] == {"clinmm": "en", "clinmm_zh": "zh"}[task]
    cases = read_config(world["hub"] / "clinmm")[:CHAINS]
    rows = lines(pred)
    assert [r["id"] for r in rows] == [c["case_id"] for c in cases]
    for row, case in zip(rows, cases):
        n = len(case["turns"])
        assert row["turn_responses"] == [f"Turn {k} noted.\nFinal diagnosis: Sarcoidosis\nReasoning: non-caseating "
                                         "granulomas on biopsy" for k in range(1, n + 1)]
        assert (row["diagnosis"], row["reasoning"]) == ("Sarcoidosis", "non-caseating granulomas on biopsy")
    result = score(world, "clinmm", pred)
    assert (result["n_items"], result["n_answered"]) == (7, 2)


def test_plain_lmms_eval_cannot_run_the_multi_round_tasks(world, tmp_path):
    """The reason they need the wrapper (or another backend): lmms-eval 0.7.3's openai backend has no multi-round."""
    source = (ROOT / ".venv-lmms").glob("lib/python3*/site-packages/lmms_eval/models/simple/openai.py")
    text = next(source).read_text(encoding="utf-8")
    assert 'raise NotImplementedError("TODO: Implement multi-round generation for OpenAI compatible models")' in text

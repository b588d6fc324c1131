"""lmms-eval hooks for X-PCR, all from `protocol.py` (the code `predict` runs):

- `xpcr_cross_modal`: one request per hospital cross-modal item (`cross_messages`), one doc per item;
- `xpcr_ablations`: the same request without one modality's images, one doc per item and modality of its
  case group (the ids the `ablations` config lists);
- `xpcr_chains`: the progressive chain of one image as lmms-eval's `generate_until_multi_round`, each round
  the whole conversation so far (the model's own earlier answers included) plus the next stage's question:
  `run_chain` itself is replayed, so the wording, order and history are predict's.

Each has a quick preview accuracy (the project's letter rule against the published answer; no CI, no SWA,
no UAS); the official scores come from `python -m leaderboard score xpcr`.
"""
import sys
from pathlib import Path

_ROOT = str(Path(__file__).resolve().parents[3])  # lmms-eval loads this file by path: make the project importable
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

import datasets  # noqa: E402

from benchmarks.xpcr.protocol import XPCRProtocol, chain_order, cross_messages, prediction, run_chain  # noqa: E402
from benchmarks.xpcr.taxonomy import ABLATION_SEP, CASE_GROUPS, LETTERS  # noqa: E402
from leaderboard.harness import lmms_eval_bridge as bridge  # noqa: E402
from leaderboard.scoring.letters import parse_letter  # noqa: E402

SETTINGS = bridge.protocol_settings(XPCRProtocol(), no_ablations=False)
count_lines = bridge.count_lines
preview_mean = bridge.preview_mean
chain_docs = bridge.raw_images


def _correct(reply: str, options: list, answer) -> float | None:
    if not answer:
        return None  # answers held out
    return float(parse_letter(reply, LETTERS[: len(options or [])]) == answer)


def _explode(dataset, ablations: bool):
    """One doc per cross-modal item (or per item and removed modality), keeping the case's columns."""
    dataset = bridge.raw_images(dataset)
    features = dataset.features.copy()
    features.update({"pred_id": datasets.Value("string"), "item_index": datasets.Value("int32"),
                     "removed_modality": datasets.Value("string")})

    def split(batch):
        out = {name: [] for name in features}
        for i, items in enumerate(batch["items"]):
            for k, item in enumerate(items or []):
                runs = ([(f"{item['item_id']}{ABLATION_SEP}{m}", m) for m in CASE_GROUPS.get(batch["case_group"][i], [])]
                        if ablations else [(item["item_id"], None)])
                for pred_id, removed in runs:
                    for name in batch:
                        out[name].append(batch[name][i])
                    out["pred_id"].append(pred_id)
                    out["item_index"].append(k)
                    out["removed_modality"].append(removed)
        return out

    return dataset.map(split, batched=True, features=features, remove_columns=dataset.column_names)


def cross_docs(dataset):
    return _explode(dataset, ablations=False)


def ablation_docs(dataset):
    return _explode(dataset, ablations=True)


def cross_doc_to_messages(doc):
    return bridge.to_lmms_messages(cross_messages(doc, doc["items"][doc["item_index"]], doc["removed_modality"]))


def cross_process_results(doc, results):
    reply = bridge.reply_text(results)
    removed = doc["removed_modality"]
    row = prediction(doc["pred_id"], reply, **({"removed_modality": removed} if removed else {}))
    item = doc["items"][doc["item_index"]]
    answers = doc.get("answers") or []
    answer = answers[doc["item_index"]] if doc["item_index"] < len(answers) else None
    task = "xpcr_ablations" if removed else "xpcr_cross_modal"
    return {bridge.RECORD_KEY: bridge.record("xpcr", task, [row], SETTINGS),
            "preview_accuracy": _correct(reply, item["options"], answer)}


def _chain(doc):
    return lambda chat: run_chain(chat, doc)


def chain_doc_to_messages(doc, round_idx=None, previous_output=None, previous_round_info=None):
    return bridge.multi_round_messages(_chain(doc), round_idx, previous_output, previous_round_info)


def chain_process_results(doc, results):
    _, rows = bridge.replay(_chain(doc), bridge.round_outputs(results))
    rows = rows or []  # None: fewer replies than questions (the run stopped early); nothing is written
    answers = dict(zip([item["item_id"] for item in doc["items"] or []], doc.get("answers") or []))
    options = {item["item_id"]: item["options"] for item in chain_order(doc["items"] or [])}
    scores = [_correct(r["response"], options[r["id"]], answers.get(r["id"])) for r in rows]
    known = [s for s in scores if s is not None]
    return {bridge.RECORD_KEY: bridge.record("xpcr", "xpcr_chains", rows, SETTINGS),
            "preview_accuracy": sum(known) / len(known) if known else None}


def doc_to_text(doc):  # shown by lmms-eval's --write_out; the request itself comes from doc_to_messages
    return f"X-PCR {doc.get('pred_id') or doc['id']}"

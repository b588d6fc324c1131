"""lmms-eval hooks for Med-CMR: the prompts are `protocol.mcq_messages` / `protocol.open_messages`, the code
`predict` runs. The MCQ task adds a quick-preview accuracy (the project's letter rule against the published
answer); open-ended items need the judge, so they have no preview."""
import sys
from pathlib import Path

_ROOT = str(Path(__file__).resolve().parents[3])  # lmms-eval loads this file by path: make the project importable
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

from benchmarks.medcmr.protocol import MedCMRProtocol, mcq_messages, open_messages  # noqa: E402
from leaderboard.harness import lmms_eval_bridge as bridge  # noqa: E402
from leaderboard.scoring.letters import parse_letter  # noqa: E402

SETTINGS = bridge.protocol_settings(MedCMRProtocol())
process_docs = bridge.raw_images
count_lines = bridge.count_lines
preview_mean = bridge.preview_mean


def mcq_doc_to_messages(doc):
    return bridge.to_lmms_messages(mcq_messages(doc))


def open_doc_to_messages(doc):
    return bridge.to_lmms_messages(open_messages(doc))


def doc_to_text(doc):  # shown by lmms-eval's --write_out; the request itself comes from doc_to_messages
    return f"Med-CMR item {doc['id']}"


def mcq_process_results(doc, results):
    response = bridge.reply_text(results)
    answer = doc.get("answer")  # absent when the answers are held out
    correct = None if not answer else float(parse_letter(response) == answer)
    return {bridge.RECORD_KEY: bridge.record("medcmr", "medcmr_mcq", [{"id": doc["id"], "response": response}], SETTINGS),
            "preview_mcq_accuracy": correct}


def open_process_results(doc, results):
    rows = [{"id": doc["id"], "response": bridge.reply_text(results)}]
    return {bridge.RECORD_KEY: bridge.record("medcmr", "medcmr_open_ended", rows, SETTINGS)}

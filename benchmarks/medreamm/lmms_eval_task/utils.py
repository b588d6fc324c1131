"""lmms-eval hooks for MedReaMM: the prompt is `protocol.build_messages`, the code `predict` runs."""
import sys
from pathlib import Path

_ROOT = str(Path(__file__).resolve().parents[3])  # lmms-eval loads this file by path: make the project importable
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

from benchmarks.medreamm.protocol import MedReaMMProtocol, build_messages  # noqa: E402
from leaderboard.harness import lmms_eval_bridge as bridge  # noqa: E402

SETTINGS = bridge.protocol_settings(MedReaMMProtocol())
process_docs = bridge.raw_images
count_lines = bridge.count_lines


def doc_to_messages(doc):
    return bridge.to_lmms_messages(build_messages(doc))


def doc_to_text(doc):  # shown by lmms-eval's --write_out; the request itself comes from doc_to_messages
    return f"MedReaMM case {doc['case_id']}"


def process_results(doc, results):
    rows = [{"id": doc["case_id"], "response": bridge.reply_text(results)}]
    return {bridge.RECORD_KEY: bridge.record("medreamm", "medreamm", rows, SETTINGS)}

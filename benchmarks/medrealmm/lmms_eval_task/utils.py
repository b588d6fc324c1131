"""lmms-eval hooks for MedRealMM: the prompt is `protocol.build_messages`, the code `predict` runs;
`medrealmm_text_only` is predict's `--text-only` run (images dropped, [图片k] markers kept). Rubric-judged:
no preview metric. lmms-eval always sends a temperature (predict leaves it to the server by default)."""
import sys
from pathlib import Path

_ROOT = str(Path(__file__).resolve().parents[3])  # lmms-eval loads this file by path: make the project importable
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

from benchmarks.medrealmm.protocol import MedRealMMProtocol, build_messages  # noqa: E402
from leaderboard.harness import lmms_eval_bridge as bridge  # noqa: E402

PROTOCOL = MedRealMMProtocol()
VARIANTS = {False: "medrealmm", True: "medrealmm_text_only"}
SETTINGS = {text_only: bridge.protocol_settings(PROTOCOL, text_only=text_only) for text_only in VARIANTS}
process_docs = bridge.raw_images
count_lines = bridge.count_lines


def doc_to_messages(doc):
    return bridge.to_lmms_messages(build_messages(doc, text_only=False))


def text_only_doc_to_messages(doc):
    return bridge.to_lmms_messages(build_messages(doc, text_only=True))


def doc_to_text(doc):  # shown by lmms-eval's --write_out; the request itself comes from doc_to_messages
    return f"MedRealMM case {doc['id']}"


def _record(doc, results, text_only: bool):
    row = {"id": doc["id"], "response": bridge.reply_text(results),
           **PROTOCOL.row_fields(bridge.options(text_only=text_only))}
    return {bridge.RECORD_KEY: bridge.record("medrealmm", VARIANTS[text_only], [row], SETTINGS[text_only])}


def process_results(doc, results):
    return _record(doc, results, text_only=False)


def text_only_process_results(doc, results):
    return _record(doc, results, text_only=True)

"""lmms-eval hooks for ClinMM-Bench: turn-by-turn disclosure as lmms-eval's `generate_until_multi_round`.
Each round sends the whole conversation so far (every earlier turn's text and images and the model's own
replies) plus the next turn, by replaying `protocol.run_case`, the code `predict` runs; the final reply is
split into `diagnosis` and `reasoning` by the same code. Judged by two LLMs: no preview metric."""
import sys
from pathlib import Path

_ROOT = str(Path(__file__).resolve().parents[3])  # lmms-eval loads this file by path: make the project importable
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

from benchmarks.clinmm.protocol import ClinMMProtocol, run_case  # noqa: E402
from leaderboard.harness import lmms_eval_bridge as bridge  # noqa: E402

TASKS = {"en": "clinmm", "zh": "clinmm_zh"}  # predict's --language en (default) / zh
SETTINGS = {language: bridge.protocol_settings(ClinMMProtocol(), language=language) for language in TASKS}
process_docs = bridge.raw_images
count_lines = bridge.count_lines


def _case(doc, language="en"):
    return lambda chat: [run_case(chat, doc["case_id"], doc, language)]


def doc_to_messages(doc, round_idx=None, previous_output=None, previous_round_info=None):
    return bridge.multi_round_messages(_case(doc), round_idx, previous_output, previous_round_info)


def zh_doc_to_messages(doc, round_idx=None, previous_output=None, previous_round_info=None):
    return bridge.multi_round_messages(_case(doc, "zh"), round_idx, previous_output, previous_round_info)


def doc_to_text(doc):  # shown by lmms-eval's --write_out; the request itself comes from doc_to_messages
    return f"ClinMM-Bench case {doc['case_id']}"


def _record(doc, results, language: str):
    _, rows = bridge.replay(_case(doc, language), bridge.round_outputs(results))
    # rows None: fewer replies than turns (the run stopped early); nothing is written for the case
    return {bridge.RECORD_KEY: bridge.record("clinmm", TASKS[language], rows or [], SETTINGS[language])}


def process_results(doc, results):
    return _record(doc, results, "en")


def zh_process_results(doc, results):
    return _record(doc, results, "zh")

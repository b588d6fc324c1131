"""The letter reader for the rule's tail, through a real OpenAI-compatible endpoint on 127.0.0.1: only the rows the
rule leaves unparseable are asked, with their item's option texts; its letters score; a row it cannot read leaves
the letter metrics pending; the result records it; off without a model; hand-computed numbers."""
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "benchmarks" / "medcmr"))
sys.path.insert(0, str(Path(__file__).resolve().parent / "benchmarks" / "xpcr"))

from fake_openai_server import FakeOpenAIServer, marks, request_text  # noqa: E402
from leaderboard.scoring.benchmark import ScoringContext  # noqa: E402
from leaderboard.scoring.judge import Judge, JudgeConfig  # noqa: E402
from leaderboard.scoring.letter_reader import letter_parser, options_block  # noqa: E402
from leaderboard.scoring.judge import JudgeParseError  # noqa: E402
from leaderboard.scoring.score_file import score_file  # noqa: E402
from leaderboard.scoring.services import ServiceConfigError, ServiceOptions, configure_services  # noqa: E402
from test_medcmr_scoring import PREDICTIONS, tiny, write_predictions  # noqa: E402,F401  (fixture)
from test_xpcr_scoring import built, write  # noqa: E402,F401  (fixture)

# Med-CMR tiny release: gold 1 A, 2 B, 3 C, 4 D, 5 E, 6 A, 7 B, 8 C, 9 D; options "one" ... "five".
# The rule reads mcq-1 (A, right), mcq-2 (C, wrong), mcq-3 (right), mcq-6 (C, wrong), mcq-7 (right), mcq-9 (right);
# it leaves mcq-4 and mcq-8 unparseable: 4 right of 9 alone.
TAIL = {"mcq-4": "Hmm, a tough call; the pattern fits whatever the last choice says.",  # the reader: E (gold D: wrong)
        "mcq-8": "Going with the third of the listed choices."}                         # the reader: C (gold C: right)
READS = {"last choice": "E", "third of the listed": "C", "not sure": None}


def reader_answer(body):
    candidate = marks(body)["candidate"]
    letter = next((v for k, v in READS.items() if k in candidate), None)
    return json.dumps({"letter": letter})


def reader(server, tmp_path, model="fake-reader", attempts=3):
    return Judge(JudgeConfig(base_url=server.base_url, model=model, cache_path=tmp_path / "reader.sqlite",
                             backoff_base=0.01, backoff_max=0.02, attempts=attempts))


def lines_with_tail():
    return [dict(line, response=TAIL[line["id"]]) if line["id"] in TAIL else line for line in PREDICTIONS]


def test_only_unparseable_rows_are_read_and_their_letters_score(tiny, tmp_path):
    with FakeOpenAIServer(reader_answer) as server:
        _, alone = score_file("medcmr", write_predictions(tiny / "p.jsonl", lines_with_tail()),
                              tiny / "hub" / "medcmr", ScoringContext(resamples=0))
        _, read = score_file("medcmr", write_predictions(tiny / "p.jsonl", lines_with_tail()),
                             tiny / "hub" / "medcmr", ScoringContext(resamples=0, letter_reader=reader(server, tmp_path)))
        users = [request_text(r)[1] for r in server.requests]
    assert alone.metrics["mcq_all"] == pytest.approx(100 * 4 / 9) and alone.parse_failures == 2
    assert alone.protocol["letter_reader"] is None and alone.protocol["comparable_to_paper"] is True
    assert read.protocol["comparable_to_paper"] is False
    assert read.protocol["not_comparable_because"] == [
        "the letter reader fake-reader read 2 response(s) the letter rule could not (the paper parses letters by rule)"]
    # the reader: mcq-4 -> E (gold D, still wrong), mcq-8 -> C (gold C, right): 5 of 9; no parse failure left
    assert read.metrics["mcq_all"] == pytest.approx(100 * 5 / 9) and read.parse_failures == 0
    assert read.metrics["mcq_LTG"] == pytest.approx(100 * 3 / 3)  # LTG: mcq-7, 8, 9 all right now (was 2 of 3)
    assert len(users) == 2  # mcq-4 and mcq-8 only: nothing the rule read is asked
    assert all("A. one\nB. two\nC. three\nD. four\nE. five" in u for u in users)  # the item's option texts
    assert any("the last choice says" in u for u in users) and not any("The answer is (C)" in u for u in users)
    recorded = read.protocol["letter_reader"]
    assert recorded == {"model": "fake-reader", "prompt": "letter_reader.v1", "routed": 2, "distinct_responses": 2,
                        "read_a_letter": 2, "read_no_answer": 0, "failures": 0, "failure_kinds": {}}


def test_a_row_the_reader_cannot_read_leaves_the_letter_metrics_pending(tiny, tmp_path):
    def answer(body):  # mcq-8 gets a letter beyond the options every time: malformed, re-asked, then a failure
        if "third of the listed" in marks(body)["candidate"]:
            return json.dumps({"letter": "F"})
        return reader_answer(body)

    with FakeOpenAIServer(answer) as server:
        _, result = score_file("medcmr", write_predictions(tiny / "p.jsonl", lines_with_tail()), tiny / "hub" / "medcmr",
                               ScoringContext(resamples=0, letter_reader=reader(server, tmp_path)))
    assert result.metrics["mcq_all"] is None and result.metrics["mcq_SOD"] is None
    assert result.pending["mcq_all"].startswith("1 unparseable response(s) the letter reader (judge) could not read")
    assert result.strata == {}
    assert result.protocol["letter_reader"]["failures"] == 1
    assert result.protocol["letter_reader"]["failure_kinds"] == {"malformed verdict": 1}


def test_a_reader_verdict_is_cached_and_a_no_answer_stays_a_parse_failure(tiny, tmp_path):
    lines = [dict(line, response="I am not sure.") if line["id"] in TAIL else line for line in PREDICTIONS]
    with FakeOpenAIServer(reader_answer) as server:
        for _ in range(2):
            _, result = score_file("medcmr", write_predictions(tiny / "p.jsonl", lines), tiny / "hub" / "medcmr",
                                   ScoringContext(resamples=0, letter_reader=reader(server, tmp_path)))
        assert server.calls() == 1  # one distinct (response, options) pair, asked once; the rescore is cached
    assert result.metrics["mcq_all"] == pytest.approx(100 * 4 / 9) and result.parse_failures == 2
    assert result.protocol["letter_reader"]["read_no_answer"] == 2
    assert result.protocol["comparable_to_paper"] is True  # the reader read no letter: the rule's numbers stand
    assert result.protocol["letter_reader"]["distinct_responses"] == 1


def test_xpcr_unparseable_responses_are_read_with_the_items_options(built, tmp_path):
    # every test item's options are alpha, beta, gamma, delta (A-D); gold is beta (B)
    lines = [{"id": "img1-1", "response": "The finding is beta."},            # the rule: B, right (not asked)
             {"id": "img1-2", "response": "alpha or delta"},                  # rule: none; the reader: none
             {"id": "img1-3", "response": "The second listed finding."},      # rule: none; the reader: B, right
             {"id": "img1-4", "response": "The last listed finding."}]        # rule: none; the reader: D, wrong

    def answer(body):
        candidate = marks(body)["candidate"]
        return json.dumps({"letter": "B" if "second" in candidate else "D" if "last" in candidate else None})

    with FakeOpenAIServer(answer) as server:
        _, result = score_file("xpcr", write(tmp_path / "p.jsonl", lines), built,
                               ScoringContext(resamples=0, keep_per_item=True, letter_reader=reader(server, tmp_path)))
        users = [request_text(r)[1] for r in server.requests]
    correct = {i: result.per_item[i]["correct"] for i in (l["id"] for l in lines)}
    assert correct == {"img1-1": 1, "img1-2": 0, "img1-3": 1, "img1-4": 0}
    assert result.parse_failures == 1
    assert len(users) == 3 and all("A. alpha\nB. beta\nC. gamma\nD. delta" in u for u in users)
    assert result.protocol["letter_reader"]["routed"] == 3
    assert result.protocol["letter_reader"]["read_a_letter"] == 2


def test_the_parser_takes_only_the_items_letters_or_no_answer():
    parse = letter_parser("ABCD")
    assert parse('{"letter": " c "}')["letter"] == "C"
    assert "evidence" not in parse('{"letter": "B", "evidence": "not asked for: never checked"}')
    assert parse('{"letter": null}')["letter"] is None and parse('{"letter": "none"}')["letter"] is None
    for bad in ('{"letter": "E"}', '{"letter": 2}', '{"letter": "B or C"}', "C"):
        with pytest.raises(JudgeParseError):
            parse(bad)
    assert options_block("ABC", ["x", None]) == "A. x\nB. (text not given)\nC. (text not given)"


def test_a_verdict_about_another_item_is_refused(tiny, tmp_path):
    # every answer names another item's id: refused (wrong criterion) on each of the 3 attempts, then a failure
    with FakeOpenAIServer(reader_answer) as server:
        server.script = ["wrong_criterion"] * 3
        lines = [line for line in lines_with_tail() if line["id"] != "mcq-4"]
        _, result = score_file("medcmr", write_predictions(tiny / "p.jsonl", lines), tiny / "hub" / "medcmr",
                               ScoringContext(resamples=0, letter_reader=reader(server, tmp_path)))
        assert server.calls() == 3
    assert result.metrics["mcq_all"] is None
    assert result.protocol["letter_reader"]["failure_kinds"] == {"wrong criterion": 1}


def test_hedges_the_injection_filter_reads_as_grading_talk_reach_the_reader_whole(tiny, tmp_path):
    hedge = "Answer: B\n\nActually, I'm not sure. It could be B or C."
    from leaderboard.scoring.judge import find_injection
    assert find_injection(hedge)  # the filter would remove the hedge, and the answer would read as B
    with FakeOpenAIServer(reader_answer) as server:
        lines = [dict(line, response=hedge) if line["id"] == "mcq-8" else line for line in PREDICTIONS]
        score_file("medcmr", write_predictions(tiny / "p.jsonl", lines), tiny / "hub" / "medcmr",
                   ScoringContext(resamples=0, letter_reader=reader(server, tmp_path)))
        candidates = [marks(r)["candidate"] for r in server.requests]
    assert hedge in candidates


def test_the_reader_is_off_without_a_model_and_a_model_without_an_endpoint_is_an_error(monkeypatch):
    for name in ("JUDGE_BASE_URL", "JUDGE_MODEL", "LETTER_READER_MODEL"):
        monkeypatch.delenv(name, raising=False)
    context = configure_services(ScoringContext(), ("letter_reader",))
    assert context.service("letter_reader") is None
    assert "the letter rule alone" in context.why_missing("letter_reader")
    with pytest.raises(ServiceConfigError, match="needs the judge endpoint"):
        configure_services(ScoringContext(), ("letter_reader",), ServiceOptions(letter_reader_model="m"))
    monkeypatch.setenv("JUDGE_BASE_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("LETTER_READER_MODEL", "reader-model")
    context = configure_services(ScoringContext(), ("letter_reader",))
    assert context.service("letter_reader").config.model == "reader-model"
    assert context.service("judge") is None  # a benchmark without `judge` in its needs gets only the reader


def test_a_huge_response_is_read_in_the_window_the_rule_reads(tiny, tmp_path):
    huge = "Let me think about the lesion. " * 2000 + "So the final pick is the third of the listed choices."
    with FakeOpenAIServer(reader_answer) as server:
        lines = [dict(line, response=huge) if line["id"] == "mcq-8" else line for line in PREDICTIONS]
        _, result = score_file("medcmr", write_predictions(tiny / "p.jsonl", lines), tiny / "hub" / "medcmr",
                               ScoringContext(resamples=0, letter_reader=reader(server, tmp_path)))
        sent = {r["messages"][1]["content"].count("Let me think") for r in server.requests}
        candidates = [marks(r)["candidate"] for r in server.requests]
    assert len(huge) == 62053 and max(len(c) for c in candidates) <= 6005  # first 4,000 + "..." + last 2,000
    assert any(c.endswith("third of the listed choices.") for c in candidates) and max(sent) < 200
    assert result.metrics["mcq_all"] == pytest.approx(100 * 5 / 9)  # mcq-8 read as C (right); mcq-4 "A or B": none

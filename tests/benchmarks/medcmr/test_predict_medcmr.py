"""Med-CMR `predict`: MCQ and open-ended prompts as sent, no leaked answers or visual descriptions,
and a scripted model whose MCQ accuracy is hand-computed."""
import pytest

from leaderboard.scoring import registry
from fake_openai_server import FakeOpenAIServer
from leaderboard.scoring.benchmark import ScoringContext
from benchmarks.medcmr.protocol import OPEN_PROMPT
from leaderboard.scoring.score_file import score_file
from predict_helpers import assert_never_sent, build_sample, decoded, lines, read_config, run


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return build_sample("medcmr", tmp_path_factory.mktemp("hub"))


@pytest.fixture(scope="module")
def items(built):
    return {r["id"]: r for config in ("mcq", "open_ended") for r in read_config(built, config)}


def item_of(body, items):
    text = body["messages"][0]["content"][-1]["text"]
    return next(i for i in items.values() if text.startswith(i["question"] + "\n\n"))


def test_prompts_images_and_no_leaks(built, items, tmp_path):
    with FakeOpenAIServer(lambda body: "Answer: A") as server:
        assert run("medcmr", built, server, tmp_path / "p.jsonl") == 0
        bodies = list(server.requests)
    assert len(bodies) == len(items) == 25
    seen = set()
    for body in bodies:
        assert len(body["messages"]) == 1 and body["messages"][0]["role"] == "user"
        parts = body["messages"][0]["content"]
        item = item_of(body, items)
        seen.add(item["id"])
        # the item's images first (original bytes), then the text
        assert [decoded(p["image_url"]["url"]) for p in parts[:-1]] == \
               [(registry.get("medcmr").sample_dir / p).read_bytes() for p in item["image_paths"]]
        text = parts[-1]["text"]
        if item["question_format"] == "mcq":
            letters = "ABCDE"[:len(item["options"])]
            option_lines = "\n".join(f"{l}. {o}" for l, o in zip(letters, item["options"]))
            assert text == (f"{item['question']}\n\nOptions:\n{option_lines}\n\nAnswer with the letter of the single "
                            f"best option ({', '.join(letters)}), in the format 'Answer: X'.")
        else:
            assert text == OPEN_PROMPT.format(question=item["question"])
            assert "Final answer:" in text and "step by step" in text
    assert seen == set(items)
    secrets = [i["visual_description"] for i in items.values()]
    secrets += [i["answer"] for i in items.values() if i["question_format"] == "open_ended"]
    assert_never_sent(bodies, secrets)


def test_mcq_accuracy_of_a_scripted_model(built, items, tmp_path):
    """The model answers the gold letter on the first 7 MCQs in dataset order and 'Answer: Z' (no
    option) on the other 14: accuracy = 7 / 21 = 33.3333; the 14 unparseable count as parse failures."""
    mcq_ids = [r["id"] for r in read_config(built, "mcq")]
    right = set(mcq_ids[:7])

    def responder(body):
        item = item_of(body, items)
        if item["question_format"] != "mcq":
            return "The lesion is ... Final answer: something"
        return f"Answer: {item['answer']}" if item["id"] in right else "Answer: Z"

    out = tmp_path / "p.jsonl"
    with FakeOpenAIServer(responder) as server:
        assert run("medcmr", built, server, out) == 0
    assert len(lines(out)) == 25
    report, result = score_file("medcmr", out, built, ScoringContext(resamples=0))
    assert report.ok
    assert result.metrics["mcq_all"] == pytest.approx(100 * 7 / 21, abs=1e-4)
    assert result.parse_failures == 14

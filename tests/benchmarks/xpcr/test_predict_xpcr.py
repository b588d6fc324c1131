"""X-PCR `predict`: chains asked stage by stage in one conversation carrying the model's own answers,
cross-modal items with all images and their modality ablations, confidence parsing, and scoring of
an all-correct scripted model."""
import re

import pytest

from benchmarks.xpcr.taxonomy import STAGES
from fake_openai_server import FakeOpenAIServer
from leaderboard.scoring.benchmark import ScoringContext
from benchmarks.xpcr.protocol import CHAIN_SYSTEM, CROSS_SYSTEM, parse_confidence
from leaderboard.scoring.score_file import score_file
from predict_helpers import build_sample, decoded, image_urls, lines, read_config, run, sha, texts

QUESTION_NO = re.compile(r"Question (\d+) of (\d+):\n(.*?)\n\nOptions:", re.S)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return build_sample("xpcr", tmp_path_factory.mktemp("hub"))


@pytest.fixture(scope="module")
def data(built):
    chains = read_config(built, "chains")
    cases = read_config(built, "cross_modal")
    return {
        "chains": {c["sha256"]: c for c in chains},
        "cases": {c["vignette"]: c for c in cases},
        "gold": {i["item_id"]: a for c in chains + cases for i, a in zip(c["items"], c["answers"])},
        "ablations": read_config(built, "ablations"),
    }


def stage_sorted(items):
    return sorted(items, key=lambda i: STAGES.index(i["stage"]))


def gold_responder(data):
    """Answers every question with its gold letter, confidence 0.9, and names the item it answered
    (so the tests can check which earlier replies were carried)."""
    def respond(body):
        messages = body["messages"]
        if messages[0]["content"] == CHAIN_SYSTEM:
            image = decoded(image_urls(messages[1])[0])
            chain = data["chains"][sha(image)]
            k = int(QUESTION_NO.search(texts(messages[-1])).group(1))
            item = stage_sorted(chain["items"])[k - 1]
        else:
            case = data["cases"][texts(messages[1]).split("\n")[0].removeprefix("Clinical vignette: ")]
            question = re.search(r"Question:\n(.*?)\n\nOptions:", texts(messages[1]), re.S).group(1)
            item = next(i for i in case["items"] if i["question"] == question)
        return f"Answer: {data['gold'][item['item_id']]}\nConfidence: 0.9\n[{item['item_id']}]"
    return respond


@pytest.fixture(scope="module")
def gold_run(built, data, tmp_path_factory):
    out = tmp_path_factory.mktemp("run") / "p.jsonl"
    with FakeOpenAIServer(gold_responder(data)) as server:
        assert run("xpcr", built, server, out) == 0
        return out, list(server.requests)


def test_chains_are_asked_in_stage_order_carrying_the_models_own_answers(data, gold_run):
    _, bodies = gold_run
    chain_bodies = [b for b in bodies if b["messages"][0]["content"] == CHAIN_SYSTEM]
    assert len(chain_bodies) == sum(len(c["items"]) for c in data["chains"].values())
    for chain in data["chains"].values():
        items = stage_sorted(chain["items"])
        mine = [b for b in chain_bodies if sha(decoded(image_urls(b["messages"][1])[0])) == chain["sha256"]]
        last = max(mine, key=lambda b: len(b["messages"]))["messages"]
        # system, then (user, assistant) per earlier item, then the last question
        assert [m["role"] for m in last] == ["system"] + ["user", "assistant"] * (len(items) - 1) + ["user"]
        users = [m for m in last if m["role"] == "user"]
        asked = [QUESTION_NO.search(texts(m)) for m in users]
        assert [(int(a.group(1)), int(a.group(2))) for a in asked] == [(k, len(items)) for k in range(1, len(items) + 1)]
        assert [a.group(3) for a in asked] == [i["question"] for i in items]
        stage_names = [re.search(r"Stage (\d) of 6", texts(m)).group(1) for m in users]
        assert stage_names == [str(STAGES.index(i["stage"]) + 1) for i in items]
        # the image (original bytes) once, in the first turn only
        assert [len(image_urls(m)) for m in users] == [1] + [0] * (len(items) - 1)
        assert sha(decoded(image_urls(users[0])[0])) == chain["sha256"]
        # the carried replies are the model's own, in order
        carried = [m["content"] for m in last if m["role"] == "assistant"]
        assert [re.search(r"\[(.*)\]$", c).group(1) for c in carried] == [i["item_id"] for i in items[:-1]]
        for m, item in zip(users, items):
            letters = [chr(65 + j) for j in range(len(item["options"]))]
            assert all(f"\n{l}. {o}" in texts(m) for l, o in zip(letters, item["options"]))


def test_an_out_of_order_stage_item_is_asked_in_its_stage(data, gold_run):
    """oct_000000's 7th item is an LC question: it is asked third-and-fourth with the other LC item."""
    chain = next(c for c in data["chains"].values() if c["id"] == "oct_000000")
    assert [i["stage"] for i in chain["items"]] == ["IQA", "AL", "LC", "DD", "SG", "CD", "LC"]
    assert [i["item_id"] for i in stage_sorted(chain["items"])][2:4] == ["oct_000000-3", "oct_000000-7"]
    _, bodies = gold_run
    mine = [b for b in bodies if b["messages"][0]["content"] == CHAIN_SYSTEM
            and sha(decoded(image_urls(b["messages"][1])[0])) == chain["sha256"]]
    fourth = next(b for b in mine if len(b["messages"]) == 8)["messages"][-1]
    assert QUESTION_NO.search(texts(fourth)).group(3) == chain["items"][6]["question"]


def test_cross_modal_items_show_every_image_and_ablations_drop_one_modality(data, gold_run):
    _, bodies = gold_run
    cross = [b for b in bodies if b["messages"][0]["content"] == CROSS_SYSTEM]
    n_items = sum(len(c["items"]) for c in data["cases"].values())
    assert len(cross) == n_items + len(data["ablations"])
    for body in cross:
        assert body["max_tokens"] == 16384 and body["temperature"] == 0.0 and body["top_p"] == 1.0
        user = body["messages"][1]
        case = data["cases"][texts(user).split("\n")[0].removeprefix("Clinical vignette: ")]
        sent = [sha(decoded(u)) for u in image_urls(user)]
        labels = re.findall(r"Image \d+ \((.*?)\):", texts(user))
        full = [s for s in case["image_sha256"]]
        if sent == full:
            assert labels == case["image_labels"]
        else:  # an ablated run: exactly one modality's images are missing
            missing = {m for m, s in zip(case["image_modalities"], full) if s not in sent}
            assert len(missing) == 1
            assert sent == [s for m, s in zip(case["image_modalities"], full) if m not in missing]
    chain_bodies = [b for b in bodies if b["messages"][0]["content"] == CHAIN_SYSTEM]
    assert all(b["max_tokens"] == 256 for b in chain_bodies)


def test_all_correct_model_scores_100_with_ece_from_its_confidence(built, data, gold_run):
    """Every answer right at confidence 0.9: every stage, chain and cross-modal accuracy is 100, every
    MCS is 100 - 100 = 0; ECE: one bin [0.9, 1.0] holding all items, |1.0 - 0.9| = 0.1; UAS: all
    confident-correct (base 1) -> 100; confidence on every chain item -> coverage 100."""
    out, _ = gold_run
    rows = lines(out)
    ids = {r["id"] for r in rows}
    assert ids == set(data["gold"]) | {a["id"] for a in data["ablations"]}
    assert all(r["confidence"] == 0.9 for r in rows)
    assert all(r["removed_modality"] == r["id"].split("/without-")[1] for r in rows if "/without-" in r["id"])
    report, result = score_file("xpcr", out, built, ScoringContext(resamples=0))
    assert report.ok, report.render()
    m = result.metrics
    for name in [*STAGES, "SWA_Avg", "ESA_Avg", "CCR", "XM_All", "UAS", "conf_coverage"]:
        assert m[name] == 100.0, name
    assert m["ECE"] == pytest.approx(0.1, abs=1e-9)
    mcs = {k: v for k, v in m.items() if k.startswith("MCS_")}
    assert mcs and all(v == 0.0 for v in mcs.values())
    assert result.parse_failures == 0


def test_no_ablations_flag_and_held_out_build(tmp_path):
    """--no-ablations skips the ablated runs; a build without answer columns runs unchanged (the
    protocol reads no answer, disease or category column)."""
    public = build_sample("xpcr", tmp_path / "hub", hold_out_answers=True)
    out = tmp_path / "p.jsonl"
    with FakeOpenAIServer(lambda body: "Answer: A\nConfidence: 55%") as server:
        assert run("xpcr", public, server, out, "--no-ablations") == 0
    rows = lines(out)
    assert rows and not any("/without-" in r["id"] for r in rows)
    assert {r["confidence"] for r in rows} == {0.55}


@pytest.mark.parametrize("text, expected", [
    ("Answer: B\nConfidence: 0.8", 0.8),
    ("Answer: B\nConfidence: 85%", 0.85),
    ("Answer: B\nconfidence = 70", 0.7),
    ("**Confidence:** .4", 0.4),
    ("Answer: B", None),
    ("Answer: B\nConfidence: 150", None),
])
def test_parse_confidence(text, expected):
    assert parse_confidence(text) == expected

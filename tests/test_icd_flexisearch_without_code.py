"""Flexisearch hits that carry no `theCode` (WHO blocks and groupings have none), through the real HTTP
protocol against the local fake WHO ICD-API: the title's auto-code is used when there is one, otherwise the
term is uncoded; a lower-scored entity that has a code is never taken instead."""
import pytest

from fake_who_icd_server import FakeWhoIcdServer
from leaderboard.scoring.matching.icd import WhoIcdApiCoder


@pytest.fixture
def server():
    with FakeWhoIcdServer() as srv:
        yield srv


@pytest.fixture
def coder(server):
    c = WhoIcdApiCoder(base_url=server.base_url, timeout=5.0, backoff_base=0.001, backoff_max=0.05)
    yield c
    c.close()


def block(title: str, score: float) -> dict:
    """A destination entity as the API returns a block: no `theCode` key at all."""
    return {"id": f"http://id.who.int/icd/release/11/2025-01/mms/{len(title)}", "title": title, "score": score,
            "chapter": "09", "isLeaf": False, "matchingPVs": []}


def test_top_hit_without_code_uses_its_titles_autocode(server, coder):
    server.search["retina disorder of diabetes"] = [
        block("<em class='found'>Diabetic retinopathy</em>", 0.9),
        {**block("Retinal disorders", 0.4), "theCode": "9B7Z"},
    ]
    server.autocode["Diabetic retinopathy"] = "9B71.0"
    assert coder.code("retina disorder of diabetes") == "9B71.0"
    assert [r.route for r in server.calls()] == ["autocode", "search", "autocode"]


def test_top_hit_without_code_and_an_uncodable_title_leaves_the_term_uncoded(server, coder):
    server.search["some eye trouble"] = [
        {**block("Disorders of the eye", 0.3), "theCode": "9E1Z"},  # lower score: must not be taken instead
        block("<em class='found'>Certain disorders of the eye</em>", 0.8),
    ]
    assert coder.code("some eye trouble") is None
    assert [(r.route, r.query.get("searchText")) for r in server.calls()] == [
        ("autocode", "some eye trouble"), ("search", None), ("autocode", "Certain disorders of the eye")]
    assert coder.code("some eye trouble") is None and len(server.calls()) == 3  # a successful "no code", memoised


@pytest.mark.parametrize("code", ["", None])
def test_an_empty_or_null_code_is_no_code(server, coder, code):
    server.search["odd finding"] = [{**block("", 0.7), "theCode": code}]  # no title either: nothing to auto-code
    assert coder.code("odd finding") is None
    assert [r.route for r in server.calls()] == ["autocode", "search"]

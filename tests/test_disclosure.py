"""Disclosure control of public records (leaderboard.privacy.disclosure): the k-rule for every number,
complementary suppression checked by an independent derivability audit, held-out labels never
public, keyed fingerprint and noise. The probing attack itself is measured by bench/probe_attack.py."""
from __future__ import annotations

import json

import numpy as np
import pytest

from leaderboard.privacy.disclosure import (Cells, Policy, cell_key, derivable_suppression, keyed_fingerprint, metric_key)
from leaderboard.operations.service import Service, SubmissionForm
from leaderboard.operations.store import LocalStore
from leaderboard.scoring.benchmark import ScoringContext
from predict_helpers import build_sample


def partition(sizes: list[int], total: bool = True) -> Cells:
    """Cells of one stratum partitioning sum(sizes) items, plus the total as a metric."""
    n = sum(sizes)
    columns, keys, start = [], [], 0
    if total:
        columns.append(np.ones(n, dtype=bool))
        keys.append(metric_key("all"))
    for j, size in enumerate(sizes):
        mask = np.zeros(n, dtype=bool)
        mask[start:start + size] = True
        start += size
        columns.append(mask)
        keys.append(cell_key("s", f"c{j}"))
    return Cells(np.column_stack(columns), keys)


def derivable(masks: np.ndarray, public: list[int], vector: np.ndarray) -> bool:
    """Independent audit at item level: is `vector` (a sum over items) a linear combination of the
    public cells' sums? Rank test, no atoms."""
    published = masks[:, public].T.astype(float)
    if not len(public):
        return False
    return np.linalg.matrix_rank(np.vstack([published, vector])) == np.linalg.matrix_rank(published)


def audit(cells: Cells, hidden: set, k: int) -> list[str]:
    """Every leak: a public cell under k items, a hidden cell under k items derivable, or a group of
    fewer than k items with identical memberships derivable."""
    masks = cells.masks
    public = [j for j, key in enumerate(cells.keys) if key not in hidden and masks[:, j].any()]
    problems = [f"public {cells.keys[j]} has {masks[:, j].sum()} items" for j in public if masks[:, j].sum() < k]
    for j, key in enumerate(cells.keys):
        if key in hidden and 0 < masks[:, j].sum() < k and derivable(masks, public, masks[:, j].astype(float)):
            problems.append(f"hidden {key} is derivable")
    groups = {}
    for j, key in enumerate(cells.keys):
        if key in hidden:
            groups.setdefault(key[:2] if key[0] == "stratum" else ("metric",), []).append(j)
    for group, members in groups.items():
        union = masks[:, members].any(axis=1)
        if 0 < union.sum() < k and derivable(masks, public, union.astype(float)):
            problems.append(f"hidden cells of {group} derivable together ({union.sum()} items)")
    patterns, atom = np.unique(masks, axis=0, return_inverse=True)
    for a in range(len(patterns)):
        members = np.asarray(atom).reshape(-1) == a
        if patterns[a].any() and members.sum() < k and derivable(masks, public, members.astype(float)):
            problems.append(f"items {np.flatnonzero(members).tolist()} derivable as a group of {members.sum()}")
    return problems


# ----------------------------------------------------------------------------- the suppression plan
def test_a_small_cell_whose_complement_is_public_takes_the_next_smallest_cell_with_it():
    cells = partition([2, 10, 20])  # total - c1 - c2 = c0 (2 items): c1 (10, next smallest) must go too
    assert derivable_suppression(cells, 5) == {cell_key("s", "c0"), cell_key("s", "c1")}
    assert audit(cells, derivable_suppression(cells, 5), 5) == []
    # the audit does catch the naive plan (k-rule alone): total minus the public cells is c0
    assert audit(cells, {cell_key("s", "c0")}, 5) == [f"hidden {cell_key('s', 'c0')} is derivable",
                                                      "hidden cells of ('stratum', 's') derivable together (2 items)",
                                                      "items [0, 1] derivable as a group of 2"]


def test_small_cells_that_together_hold_k_items_need_no_complement():
    cells = partition([1, 4, 10, 17])  # total - c2 - c3 = c0 + c1 = 5 items: a group of k is fine
    assert derivable_suppression(cells, 5) == {cell_key("s", "c0"), cell_key("s", "c1")}
    # with k = 6 the 5-item remainder is too small: c2 (10) joins
    assert derivable_suppression(cells, 6) == {cell_key("s", "c0"), cell_key("s", "c1"), cell_key("s", "c2")}


def test_a_nested_partition_cannot_reveal_the_cell_its_parent_would_leave():
    # tasks t0 (2 items), t1 (6), t2 (6) make up group "visual"; t3 (30) is "reasoning". The plain
    # partition rule would add t1 only; then visual - t2 = t0 + t1 is fine, but reasoning is public,
    # so every suppressed value must stay hidden within both levels.
    n = 44
    sizes = [2, 6, 6, 30]
    masks, keys, start = [np.ones(n, dtype=bool)], [metric_key("all")], 0
    tasks = []
    for j, size in enumerate(sizes):
        m = np.zeros(n, dtype=bool)
        m[start:start + size] = True
        start += size
        tasks.append(m)
        masks.append(m)
        keys.append(cell_key("task", f"t{j}"))
    masks += [tasks[0] | tasks[1] | tasks[2], tasks[3]]
    keys += [cell_key("group", "visual"), cell_key("group", "reasoning")]
    # a second stratum splitting t0 across two values makes 1-item atoms
    other = np.zeros(n, dtype=bool)
    other[[0, 2, 3, 14, 15]] = True
    masks += [other, ~other]
    keys += [cell_key("organ", "x"), cell_key("organ", "y")]
    cells = Cells(np.column_stack(masks), keys)
    hidden = derivable_suppression(cells, 5)
    assert cell_key("task", "t0") in hidden
    assert audit(cells, hidden, 5) == []


# ----------------------------------------------------------------------------- the real path, on the sample
@pytest.fixture(scope="module")
def held_out_medcmr(tmp_path_factory):
    return build_sample("medcmr", tmp_path_factory.mktemp("hub"), hold_out_answers=True)


def submit_probe(tmp_path, data, letter_of, policy=Policy(secret=b"test-secret")):
    """Score one prediction file through Service and Store, as the Space does; return the public record."""
    from leaderboard.intake.answer_key import read_columns

    ids = read_columns(data, "mcq", ["id"]).column("id").to_pylist()
    upload = tmp_path / f"probe-{len(list(tmp_path.glob('probe-*')))}.jsonl"
    upload.write_text("".join(json.dumps({"id": i, "answer": letter_of(k, i)}) + "\n" for k, i in enumerate(ids)))
    store = LocalStore(tmp_path / "store", policy=policy)
    service = Service(store=store, data_dirs={"medcmr": data}, context_factory=lambda b: ScoringContext(resamples=200),
                      quota_per_day=100)
    outcome = service.submit("attacker", SubmissionForm(benchmark="medcmr", model_name="probe"), upload)
    assert outcome.accepted, outcome.message
    service.score_one(outcome.submission_id)
    return store.record("medcmr", outcome.submission_id), ids


@pytest.mark.parametrize("probe", ["all A", "17 of 21 right"])
def test_an_all_a_probe_shows_no_number_from_fewer_than_k_items(tmp_path, held_out_medcmr, probe):
    """All-A is at chance, so it gets no breakdowns at all; a good model's file gets them, and then
    the k-rule and complementary suppression are what keep small cells hidden."""
    from benchmarks.medcmr.scorer import _metric_name, subset_masks
    from leaderboard.scoring.engine import subset_numbers
    from leaderboard.intake.answer_key import read_columns

    answers = read_columns(held_out_medcmr.with_name("medcmr-answers"), "mcq", ["id", "answer"]).to_pylist()
    gold = {g["id"]: g["answer"] for g in answers}
    letter = (lambda k, i: "A") if probe == "all A" else (lambda k, i: gold[i] if k % 5 else "ABCDE"[k % 3])
    record, ids = submit_probe(tmp_path, held_out_medcmr, letter)
    breakdowns = probe != "all A"
    assert (record["strata"]["complexity_group"]["reasoning"]["metrics"] != {}) == breakdowns
    k = record["protocol"]["disclosure"]["min_cell"]
    assert k == 5
    for name, value in record["metrics"].items():
        if value is not None:
            assert record["metric_n"].get(name, record["n_items"]) >= k, name
    for name in record["ci"]:
        assert record["metrics"][name] is not None
    for stratum, cells in record["strata"].items():
        for value, cell in cells.items():
            if cell["n"] < k:
                assert cell.get("suppressed") and cell["metrics"] == {} and "ci" not in cell, (stratum, value)
    # on this 21-MCQ sample the 1-3 item tasks and categories are all hidden, their columns too
    assert record["metrics"]["mcq_PA"] is None and "suppressed" in record["pending"]["mcq_PA"]
    assert record["metrics"]["mcq_macro"] is None  # a mean of suppressed task columns
    # the independent audit: nothing hidden is derivable from what is public
    table = read_columns(held_out_medcmr, "mcq", ["id", "task", "medical_intelligence", "complexity_group",
                                                  "modality", "organ_system"])
    columns, names = subset_masks(table)
    cells = subset_numbers(np.zeros(len(columns)), columns, names, 0, 0).cells(_metric_name)
    hidden = set()
    for key in cells.keys:
        if key[0] == "metric" and record["metrics"].get(key[1]) is None:
            hidden.add(key)
        if key[0] == "stratum" and record["strata"].get(key[1], {}).get(key[2], {}).get("suppressed"):
            hidden.add(key)
    assert hidden and audit(cells, hidden, k) == []


def test_held_out_public_values_are_keyed_noise_and_the_fingerprint_is_an_hmac(tmp_path, held_out_medcmr):
    from leaderboard.scoring.score_file import score_file

    record, ids = submit_probe(tmp_path, held_out_medcmr, lambda k, i: "A")
    upload = tmp_path / "probe-0.jsonl"
    _, exact = score_file("medcmr", upload, held_out_medcmr, ScoringContext(resamples=0))
    public = record["metrics"]["mcq_all"]
    # 2 items of noise over the 21 MCQs: the keyed draw (HMAC of the submission id and the label, recomputed here)
    # times 2 x 100 / 21 points, clamped to 0-100, 4 decimals; the exact value (a multiple of 100/21) is not shown
    n = 21
    noisy = exact.metrics["mcq_all"] + _keyed_gauss(b"test-secret", record["submission_id"], "m:mcq_all") * 2.0 * 100.0 / n
    assert public == round(min(100.0, max(0.0, noisy)), 4) and public != exact.metrics["mcq_all"]
    assert record["protocol"]["answers_held_out"] and record["protocol"]["disclosure"]["noise_items"] == 2.0
    fingerprint = record["protocol"]["dataset_fingerprint"]
    assert fingerprint == keyed_fingerprint(b"test-secret", exact.protocol["dataset_fingerprint"])
    assert fingerprint != keyed_fingerprint(b"other-secret", exact.protocol["dataset_fingerprint"])
    assert exact.protocol["dataset_fingerprint"] not in json.dumps(record)
    # the same result published again (a rescore) shows the same values: the noise is keyed, not drawn
    again = exact.to_public_dict(Policy(secret=b"test-secret"), salt=record["submission_id"])
    assert again["protocol"]["dataset_fingerprint"] == fingerprint


def test_without_a_secret_a_held_out_key_publishes_only_the_fingerprint_of_its_ids(held_out_medcmr):
    from leaderboard.scoring import registry
    from leaderboard.scoring.score_file import load_key, score_file

    key = load_key(registry.scorer("medcmr"), held_out_medcmr)
    upload = held_out_medcmr.parent / "empty.jsonl"
    upload.write_text(json.dumps({"id": key.ids[0], "answer": "A"}) + "\n")
    _, result = score_file("medcmr", upload, held_out_medcmr, ScoringContext(resamples=0), key=key)
    public = result.to_public_dict(Policy(secret=None))
    assert public["protocol"]["dataset_fingerprint"] == key.public_fingerprint != key.fingerprint
    assert public["protocol"]["disclosure"]["noise_items"] == 0  # no secret: exact values, k-rule only


def test_the_store_keeps_its_own_secret_when_none_is_configured(tmp_path):
    store = LocalStore(tmp_path / "store")
    secret = store.policy.secret
    assert secret and len(secret) == 64 and LocalStore(tmp_path / "store").policy.secret == secret
    assert (tmp_path / "store" / "private" / "disclosure.key").is_file()
    assert not (tmp_path / "store" / "results").exists()


def test_xpcr_held_out_labels_build_no_public_strata_or_columns(tmp_path):
    from leaderboard.scoring.score_file import score_file, load_key
    from leaderboard.scoring import registry

    data = build_sample("xpcr", tmp_path, hold_out_answers=True)
    key = load_key(registry.scorer("xpcr"), data)
    assert {"disease", "disease_category"} <= set(key.held_out_columns)
    upload = tmp_path / "a.jsonl"
    upload.write_text("".join(json.dumps({"id": i, "answer": "A"}) + "\n" for i in key.ids[:40]))
    _, result = score_file("xpcr", upload, data, ScoringContext(resamples=0), key=key)
    assert "disease" in result.strata and result.metrics["category_DR"] is not None  # exact, private
    public = result.to_public_dict(Policy(min_cell=1, secret=b"s"))
    assert "disease" not in public["strata"] and "disease_category" not in public["strata"]
    assert all(public["metrics"][f"category_{c}"] is None for c in ("DR", "AMD", "Rare"))
    assert public["pending"]["category_DR"] == "built from held-out labels; not public"
    assert "category_DR" not in public["metric_n"]
    # with the answers public (no hold-out) the same labels are ordinary strata
    open_data = build_sample("xpcr", tmp_path / "open")
    _, result = score_file("xpcr", upload, open_data, ScoringContext(resamples=0))
    public = result.to_public_dict(Policy(min_cell=1, secret=b"s"))
    assert "disease" in public["strata"] and public["metrics"]["category_DR"] == result.metrics["category_DR"]


def test_min_cell_comes_from_the_environment():
    from leaderboard.settings import Settings

    policy = Policy.from_settings(Settings.from_env({"LEADERBOARD_MIN_CELL": "10", "LEADERBOARD_SECRET": "abc",
                                                     "LEADERBOARD_PUBLIC_NOISE": "3"}))
    assert (policy.min_cell, policy.secret, policy.noise_items) == (10, b"abc", 3.0)
    assert Policy.from_settings(Settings.from_env({})).min_cell == 5
    with pytest.raises(ValueError):
        Policy(min_cell=0)


def test_an_account_gets_breakdowns_for_its_budget_of_results_per_30_days(tmp_path, held_out_medcmr):
    from leaderboard.scoring.score_file import score_file

    from leaderboard.intake.answer_key import read_columns

    gold = read_columns(held_out_medcmr.with_name("medcmr-answers"), "mcq", ["id", "answer"]).to_pylist()
    upload = tmp_path / "a.jsonl"  # a model that gets 17 of 21 right: clearly above a constant answer
    upload.write_text("".join(json.dumps({"id": g["id"], "answer": g["answer"] if k % 5 else "ABCDE"[k % 3]}) + "\n"
                              for k, g in enumerate(gold)))
    _, result = score_file("medcmr", upload, held_out_medcmr, ScoringContext(resamples=0))
    store = LocalStore(tmp_path / "store", policy=Policy(min_cell=1, secret=b"s", breakdowns_per_month=2))
    for sub in ("s1", "s2", "s3"):
        store.save_result(sub, result, account="mallory")
    store.save_result("s1", result, account="mallory")  # a rescore of a counted result keeps its breakdowns
    records = {s: store.record("medcmr", s) for s in ("s1", "s2", "s3")}
    assert records["s1"]["metrics"]["mcq_SOD"] is not None and records["s2"]["strata"]["task"]["SOD"]["metrics"]
    third = records["s3"]
    assert third["metrics"]["mcq_SOD"] is None and third["pending"]["mcq_SOD"].startswith("withheld")
    assert third["strata"]["task"]["SOD"] == {"n": 3, "metrics": {}, "withheld": True}
    assert third["metrics"]["mcq_all"] is not None and third["metrics"]["mcq_macro"] is not None  # whole-set numbers
    store.save_result("s4", result, account="alice")  # another account has its own budget
    assert store.record("medcmr", "s4")["metrics"]["mcq_SOD"] is not None
    ledger = list((tmp_path / "store" / "private" / "breakdowns").iterdir())
    assert len(ledger) == 2 and all("mallory" not in p.name and "alice" not in p.name for p in ledger)


def test_a_constant_letter_probe_gets_no_breakdowns_on_a_held_out_key(tmp_path, held_out_medcmr):
    """Its per-subset accuracies would be the key's letter shares per subset (the bench showed a blind
    guess going from 21% to 25% at 3,000 MCQs with them); whole-set numbers stay."""
    from leaderboard.scoring.score_file import score_file

    upload = tmp_path / "b.jsonl"
    upload.write_text("".join(json.dumps({"id": f"mcq-{k}", "answer": "B"}) + "\n" for k in range(21)))
    _, result = score_file("medcmr", upload, held_out_medcmr, ScoringContext(resamples=0))
    assert result.metrics["mcq_all"] <= result.disclosure.chance["mcq_all"]
    public = result.to_public_dict(Policy(min_cell=1, secret=b"s"))
    assert public["metrics"]["mcq_all"] is not None and public["metrics"]["mcq_SOD"] is None
    assert "constant answer" in public["pending"]["mcq_SOD"] and public["strata"]["task"]["SOD"]["withheld"]


def test_the_ranking_metric_is_the_last_complement_chosen():
    # c0 (2 items) is hidden; total - c1 - c2 reveals it. Unprotected, c1 (the smaller) goes with it;
    # when c1 is the ranking metric's input, c2 goes instead and the audit still finds no leak.
    cells = partition([2, 10, 20])
    assert derivable_suppression(cells, 5) == {cell_key("s", "c0"), cell_key("s", "c1")}
    plan = derivable_suppression(cells, 5, protected={cell_key("s", "c1")})
    assert plan == {cell_key("s", "c0"), cell_key("s", "c2")} and audit(cells, plan, 5) == []
    # when every public cell in the derivation is protected, safety wins over ranking
    everything = {cell_key("s", c) for c in ("c1", "c2")} | {k for k in cells.keys if k[0] == "metric"}
    plan = derivable_suppression(cells, 5, protected=everything)
    assert cell_key("s", "c0") in plan and audit(cells, plan, 5) == []


# ----------------------------------------------------------------------------- issue 26's surviving mutants
def nested(parent: int, child: int, total: int) -> Cells:
    """A total, a parent cell of `parent` items and a child cell of its first `child` items."""
    columns = [np.ones(total, dtype=bool), np.arange(total) < parent, np.arange(total) < child]
    return Cells(np.column_stack(columns), [metric_key("all"), cell_key("stage", "DD"), cell_key("stage_tier", "DD/A")])


def test_a_parent_minus_its_public_child_never_reveals_fewer_than_k_items():
    # DD (10) and DD/A (7) are both over k, but DD - DD/A is 3 items: one of the two must go
    plan = derivable_suppression(nested(10, 7, 40), 5)
    assert plan & {cell_key("stage", "DD"), cell_key("stage_tier", "DD/A")}
    assert audit(nested(10, 7, 40), plan, 5) == []
    # a difference of k items is allowed: nothing hidden
    assert derivable_suppression(nested(12, 7, 40), 5) == set()


def test_a_cell_and_the_metric_over_the_same_items_hide_together_with_the_true_reason():
    from leaderboard.privacy.disclosure import suppression_plan

    n = 30
    sg = np.arange(n) < 10
    masks = np.column_stack([np.ones(n, dtype=bool), sg, sg, np.arange(n) < 7])
    keys = [metric_key("all"), metric_key("SG"), cell_key("stage", "SG"), cell_key("stage_tier", "SG/A")]
    # SG/A (7) is inside SG (10): 3 items apart. The smaller SG/A goes...
    assert suppression_plan(Cells(masks, keys), 5) == {cell_key("stage_tier", "SG/A"): "complementary"}
    # ...unless it is protected: then the SG cell goes, and its metric twin with it, for the same reason
    plan = suppression_plan(Cells(masks, keys), 5, protected={cell_key("stage_tier", "SG/A")})
    assert plan == {metric_key("SG"): "complementary", cell_key("stage", "SG"): "complementary"}
    # protecting the metric protects its twin cell too: SG/A goes
    plan = suppression_plan(Cells(masks, keys), 5, protected={metric_key("SG")})
    assert plan == {cell_key("stage_tier", "SG/A"): "complementary"}
    small = Cells(np.column_stack([np.ones(n, dtype=bool), np.arange(n) < 3, np.arange(n) < 3]),
                  [metric_key("all"), metric_key("X"), cell_key("s", "X")])
    assert suppression_plan(small, 5) == {metric_key("X"): "k-rule", cell_key("s", "X"): "k-rule"}


def test_publish_reasons_are_the_rule_that_applied():
    from leaderboard.privacy.disclosure import Disclosure, publish, why_hidden

    n = 30
    labels = ["a"] * 3 + ["b"] * 6 + ["c"] * 21
    cells = Cells.from_labels({"s": labels}, ["all"])
    data = {"benchmark": "nope", "metrics": {"all": 50.0}, "n_items": n,
            "strata": {"s": {v: {"n": labels.count(v), "metrics": {"acc": 1.0}} for v in "abc"}}}
    public = publish(data, Disclosure(cells=[cells]), Policy())
    assert public["strata"]["s"]["a"]["reason"] == why_hidden("k-rule", 5)
    assert public["strata"]["s"]["b"]["reason"] == why_hidden("complementary", 5)  # all - c = a + b: b tops up
    assert public["strata"]["s"]["c"] == {"n": 21, "metrics": {"acc": 1.0}}


def test_a_subset_metric_under_k_items_is_pending_even_without_an_item_set():
    from leaderboard.privacy.disclosure import Disclosure, publish

    data = {"benchmark": "nope", "metrics": {"all": 50.0, "part": 25.0}, "n_items": 30,
            "metric_n": {"all": 30, "part": 4}, "strata": {}}
    public = publish(data, Disclosure(), Policy())
    assert public["metrics"] == {"all": 50.0, "part": None}
    assert public["pending"]["part"].startswith("suppressed: computed from fewer than 5 items")
    data["metric_n"]["part"] = 5
    assert publish(data, Disclosure(), Policy())["metrics"]["part"] == 25.0


def _keyed_gauss(secret: bytes, salt: str, label: str) -> float:
    import hashlib
    import hmac
    from statistics import NormalDist

    digest = hmac.new(secret, f"{salt}\x00{label}".encode(), hashlib.sha256).digest()
    return NormalDist().inv_cdf((int.from_bytes(digest[:8], "big") + 0.5) / 2 ** 64)


def _held_out(value: float, n: int) -> dict:
    return {"benchmark": "nope", "metrics": {"acc": value}, "n_items": n, "metric_n": {"acc": n}, "strata": {},
            "protocol": {"answers_held_out": True, "held_out_columns": []}}


def test_public_noise_has_exactly_the_declared_magnitude():
    from leaderboard.privacy.disclosure import Disclosure, publish

    policy = Policy(secret=b"k3y", noise_items=2.0)
    public = publish(_held_out(40.0, 50), Disclosure(item_span={"acc": 100.0}, bounds={"acc": (0.0, 100.0)}),
                     policy, salt="sub-1")
    # 2 items of noise over 50 items of a x100 mean: sd 4 points, times the keyed standard normal draw
    expected = 40.0 + _keyed_gauss(b"k3y", "sub-1", "m:acc") * 2.0 * 100.0 / 50
    assert public["metrics"]["acc"] == round(expected, 4) and abs(expected - 40.0) > 0.05


def test_noisy_values_stay_inside_the_metric_range():
    from leaderboard.privacy.disclosure import Disclosure, publish

    # a salt whose draw is negative: a value of 0 % would go below 0 without the clamp
    salt = next(f"s{i}" for i in range(100) if _keyed_gauss(b"k", f"s{i}", "m:acc") < -0.5)
    disclosure = Disclosure(item_span={"acc": 100.0}, bounds={"acc": (0.0, 100.0)})
    assert publish(_held_out(0.0, 20), disclosure, Policy(secret=b"k"), salt=salt)["metrics"]["acc"] == 0.0
    high = next(f"s{i}" for i in range(100) if _keyed_gauss(b"k", f"s{i}", "m:acc") > 0.5)
    assert publish(_held_out(100.0, 20), disclosure, Policy(secret=b"k"), salt=high)["metrics"]["acc"] == 100.0


def test_a_held_out_cell_takes_its_metric_twin_with_it():
    from leaderboard.privacy.disclosure import suppression_plan

    n = 30
    x = np.arange(n) < 10
    cells = Cells(np.column_stack([np.ones(n, dtype=bool), x, x]), [metric_key("all"), metric_key("X"), cell_key("s", "X")])
    # 10 items is above k, but the cell is built from a held-out column: the metric over the same items goes too
    assert suppression_plan(cells, 5, hidden={cell_key("s", "X")}) == {cell_key("s", "X"): "held-out",
                                                                       metric_key("X"): "held-out"}


def test_parent_minus_child_is_caught_even_past_the_exhaustive_search_budget(monkeypatch):
    from leaderboard.privacy import disclosure

    # DD (items 0-9) minus DD/A (0-6) is items 7, 8, 9; an "eye" stratum splits them (7 left, 8-9 right), so no
    # single membership group of them is derivable and no cell is small: only "a parent minus its children" sees it
    n = 40
    items = np.arange(n)
    left = (items <= 7) | ((items >= 10) & (items <= 25))
    cells = Cells(np.column_stack([np.ones(n, dtype=bool), items <= 9, items <= 6, left, ~left]),
                  [metric_key("all"), cell_key("stage", "DD"), cell_key("stage_tier", "DD/A"),
                   cell_key("eye", "L"), cell_key("eye", "R")])
    for budget in (0, disclosure.MAX_SUBSETS):  # with and without the exhaustive search
        monkeypatch.setattr(disclosure, "MAX_SUBSETS", budget)
        plan = derivable_suppression(cells, 5)
        assert plan and audit(cells, plan, 5) == []
        assert plan & {cell_key("stage", "DD"), cell_key("stage_tier", "DD/A")}


def test_a_derivable_combination_outside_the_usual_shapes_is_found_by_the_exhaustive_search(monkeypatch):
    from leaderboard.privacy import disclosure

    # five overlapping cells (7-14 items each, found by a random search): a +-1/2 combination of four
    # single items is derivable, though no pair, parent/child or membership group shows it
    columns = ["000011101010101111010010", "100100000110100001010000", "000001101010110000011101",
               "111001101001011001110011", "100000000110100001000110"]
    masks = np.column_stack([np.ones(24, dtype=bool)] + [np.array([c == "1" for c in col]) for col in columns])
    cells = Cells(masks, [metric_key("all")] + [cell_key(f"s{j}", "v") for j in range(5)])
    plan = derivable_suppression(cells, 5)
    assert plan and audit(cells, plan, 5) == []
    assert small_groups_derivable(cells, plan, 5) == []
    monkeypatch.setattr(disclosure, "MAX_SUBSETS", 0)  # structured shapes only: this one slips through
    assert derivable_suppression(cells, 5) == set()


def small_groups_derivable(cells: Cells, hidden: set, k: int) -> list:
    """Every union of membership groups under k items on which a combination of public cells is supported
    (item level: v = Q y supported on S iff rank(Q[~S]) < rank(Q))."""
    import itertools

    masks = cells.masks
    public = [j for j, key in enumerate(cells.keys) if key not in hidden]
    q, s, _ = np.linalg.svd(masks[:, public].astype(float), full_matrices=False)
    q = q[:, : int((s > 1e-9).sum())]
    _, group = np.unique(masks, axis=0, return_inverse=True)
    group = np.asarray(group).reshape(-1)
    members = [np.flatnonzero(group == g) for g in range(group.max() + 1)]
    small = [g for g, m in enumerate(members) if len(m) < k]
    found = []
    for size in range(1, k):
        for subset in itertools.combinations(small, size):
            items = np.concatenate([members[g] for g in subset])
            rest = np.ones(len(masks), dtype=bool)
            rest[items] = False
            if len(items) < k and np.linalg.matrix_rank(q[rest], tol=1e-8) < q.shape[1]:
                found.append(items.tolist())
    return found

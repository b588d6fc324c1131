"""The paired half of the ranking rule (leaderboard/publishing/tie_groups.py): which pairs are tested, how a paired
outcome is decided (the module's PAIRED_SHARE, one resample width), the pairing keys, the budget, lower-is-better
boards and the outcome cache a rebuilt board reuses. Hand-computed boards first, then random boards against a
direct pair-by-pair reading of the rule written out below (every overlapping pair tested, O(n^2))."""
import numpy as np
import pytest

from leaderboard.publishing.tie_groups import PAIRED_SHARE, Ranks, rank_ranges, tied, wilson

WIDTH = 1000
LIMIT = int(PAIRED_SHARE * WIDTH)  # 975: "ahead" needs strictly more leading resamples than this


def leads(count: int, width: int = WIDTH, base: float = 50.0) -> tuple[np.ndarray, np.ndarray]:
    """Two resample vectors where the first is larger in exactly `count` resamples and smaller in the rest."""
    a = np.full(width, base)
    b = np.full(width, base)
    a[:count] += 1.0
    b[count:] += 1.0
    return a, b


class Loader:
    """A resample loader that counts its calls (the rule loads only rows in a tested pair)."""

    def __init__(self, values):
        self.values, self.calls = values, 0

    def __call__(self):
        self.calls += 1
        return self.values


# ---------------------------------------------------------------- hand-computed boards


def test_a_paired_lead_counts_only_above_the_modules_share():
    assert LIMIT == 975
    scores, lows, highs = np.array([60.0, 58.0]), np.array([50.0, 49.0]), np.array([70.0, 69.0])
    for count, expected in [(LIMIT, ["1–2", "1–2"]), (LIMIT + 1, ["1", "2"])]:
        a, b = leads(count)
        ranks = rank_ranges(scores, lows, highs, resamples=[a, b])
        assert ranks.labels() == expected, count
        assert ranks.paired is True
    # the other direction (the row with the lower bound further down leads): the same boundary
    for count, expected in [(LIMIT, ["1–2", "1–2"]), (LIMIT + 1, ["2", "1"])]:
        b, a = leads(count)
        assert rank_ranges(scores, lows, highs, resamples=[a, b]).labels() == expected, count


def test_lower_is_better_boards_negate_the_paired_resamples():
    # error rates: row 0 lower (better) in 990 of 1,000 paired resamples; overlapping CIs
    low_a, high_b = leads(990, base=10.0)[1], leads(990, base=10.0)[0]
    ranks = rank_ranges(np.array([10.2, 10.8]), np.array([8.0, 9.0]), np.array([12.0, 13.0]),
                        higher_is_better=False, resamples=[low_a, high_b])
    assert ranks.labels() == ["1", "2"]
    # without resamples the two overlap and share 1-2
    assert rank_ranges(np.array([10.2, 10.8]), np.array([8.0, 9.0]), np.array([12.0, 13.0]),
                       higher_is_better=False).labels() == ["1–2", "1–2"]


def test_rows_with_another_pairing_key_or_resample_width_fall_back_to_intervals():
    # A, B, C, D all overlap; resamples say A > B > C > D everywhere. C was scored on another dataset version
    # (pair key "v2"), D has 500 resamples instead of 1,000: only A-B is a paired test.
    base = np.linspace(40, 60, WIDTH)
    resamples = [base + 3, base + 2, base + 1, np.linspace(40, 60, 500)]
    scores = np.array([53.0, 52.0, 51.0, 50.0])
    lows, highs = scores - 5, scores + 5
    ranks = rank_ranges(scores, lows, highs, resamples=resamples, pair_keys=["v1", "v1", "v2", "v1"])
    assert ranks.best.tolist() == [1, 2, 1, 1] and ranks.worst.tolist() == [3, 4, 4, 4]
    # all on one key: D (the odd width) is still only compared by intervals
    ranks = rank_ranges(scores, lows, highs, resamples=resamples, pair_keys=["v1"] * 4)
    assert ranks.best.tolist() == [1, 2, 3, 1] and ranks.worst.tolist() == [2, 3, 4, 4]


def test_a_lone_pairing_key_does_not_stop_the_others():
    base = np.linspace(40, 60, WIDTH)
    scores = np.array([50.0, 53.0, 52.0])
    ranks = rank_ranges(scores, scores - 5, scores + 5, resamples=[base, base + 3, base + 2],
                        pair_keys=["solo", "v1", "v1"])
    assert ranks.best.tolist() == [1, 1, 2] and ranks.worst.tolist() == [3, 2, 3]


def test_a_missing_resample_file_is_not_paired():
    # a loader that finds nothing (the resamples of an old submission were not kept)
    a, _ = leads(LIMIT + 20)
    scores = np.array([51.0, 50.0])
    ranks = rank_ranges(scores, scores - 5, scores + 5, resamples=[Loader(a), Loader(None)])
    assert ranks.labels() == ["1–2", "1–2"]


def test_the_majority_width_decides_which_rows_are_paired():
    # two rows of 400 resamples, one of 600: the 400s are paired, the 600 is not (whatever its order in the list)
    short = np.linspace(40, 60, 400)
    odd = np.linspace(40, 60, 600)
    cases = [([short + 1, short, odd], [51.0, 50.0, 50.5], [[1, 2, 1], [2, 3, 3]]),
             ([odd, short + 1, short], [50.5, 51.0, 50.0], [[1, 1, 2], [3, 2, 3]])]
    for resamples, scores, expected in cases:
        scores = np.array(scores)
        ranks = rank_ranges(scores, scores - 5, scores + 5, resamples=resamples)
        assert [ranks.best.tolist(), ranks.worst.tolist()] == expected


def test_empty_and_missing_resamples_are_not_paired():
    a, b = leads(LIMIT + 20)
    scores = np.array([51.0, 50.0])
    for pair in ([a, np.array([])], [None, b], [a, None]):
        assert rank_ranges(scores, scores - 5, scores + 5, resamples=pair).labels() == ["1–2", "1–2"]


def test_only_overlapping_rows_are_loaded_and_touching_intervals_overlap():
    # A [60,70], B [50,60] (touches A), C [30,40] (apart). Resamples separate all three.
    base = np.linspace(0, 1, WIDTH)
    loaders = [Loader(base + 65), Loader(base + 55), Loader(base + 35)]
    ranks = rank_ranges(np.array([65.0, 55.0, 35.0]), np.array([60.0, 50.0, 30.0]), np.array([70.0, 60.0, 40.0]),
                        resamples=loaders)
    assert ranks.labels() == ["1", "2", "3"]
    assert [loader.calls for loader in loaders] == [1, 1, 0]


def test_the_paired_budget_counts_overlapping_pairs():
    base = np.linspace(40, 60, WIDTH)
    scores = np.array([53.0, 52.0, 51.0])
    resamples = [base + 3, base + 2, base + 1]  # 3 overlapping pairs
    within = rank_ranges(scores, scores - 5, scores + 5, resamples=resamples, max_paired_pairs=3)
    assert within.paired is True and within.labels() == ["1", "2", "3"]
    over = rank_ranges(scores, scores - 5, scores + 5, resamples=resamples, max_paired_pairs=2)
    assert over.paired is False and over.labels() == ["1–3", "1–3", "1–3"]
    # the budget is for the whole board, summed over pairing keys: 1 pair on "x" + 3 on "y" = 4
    scores = np.array([53.0, 52.0, 51.0, 30.0, 29.0])
    resamples = [base + 3, base + 2, base + 1, base - 20, base - 21]
    keys = ["y", "y", "y", "x", "x"]
    assert rank_ranges(scores, scores - 5, scores + 5, resamples=resamples, pair_keys=keys,
                       max_paired_pairs=4).paired is True
    assert rank_ranges(scores, scores - 5, scores + 5, resamples=resamples, pair_keys=keys,
                       max_paired_pairs=3).paired is False


def test_equal_scores_at_the_shown_precision_share_a_range():
    # 80.04 and 80.01 both show as 80.0 (one decimal by default) although the points are apart
    scores = np.array([80.04, 80.01, 79.0])
    assert rank_ranges(scores, scores, scores).labels() == ["1–2", "1–2", "3"]
    assert rank_ranges(scores, scores, scores, decimals=2).labels() == ["1", "2", "3"]


def test_an_empty_board():
    ranks = rank_ranges(np.array([]), np.array([]), np.array([]))
    assert isinstance(ranks, Ranks) and ranks.paired is True
    assert ranks.best.dtype.kind == "i" and ranks.worst.dtype.kind == "i" and len(ranks.best) == 0


def test_tied_at_exactly_the_share_either_way():
    a, b = leads(975)
    assert tied(a, b) is True and tied(b, a) is True
    a, b = leads(976)
    assert tied(a, b) is False and tied(b, a) is False


def test_wilson_clips_percentages_outside_0_100():
    assert wilson(150.0, 10) == wilson(100.0, 10)
    assert wilson(-5.0, 10) == wilson(0.0, 10)


def test_more_pairs_than_one_chunk():
    # 70 overlapping rows, each ahead of the next in every paired resample: 2,415 pairs (> 2,048 in a chunk)
    n = 70
    base = np.random.default_rng(1).normal(0, 1, WIDTH)
    scores = 50 + np.arange(n)[::-1] * 0.01
    resamples = [base + s for s in scores]
    ranks = rank_ranges(scores, scores - 5, scores + 5, resamples=resamples, decimals=3)
    assert ranks.best.tolist() == list(range(1, n + 1)) and ranks.worst.tolist() == list(range(1, n + 1))


# ---------------------------------------------------------------- the outcome cache


def test_a_rebuilt_board_tests_only_the_new_rows_pairs_and_reuses_the_rest():
    base = np.linspace(0, 1, WIDTH)
    # A 62 [57,67], B 60 [55,65], C 40 [35,45]; paired: A ahead of B
    values = {"A": base + 62, "B": base + 60, "C": base + 40}
    loaders = {k: Loader(v) for k, v in values.items()}
    cache: dict = {}
    scores, lows, highs = [62.0, 60.0, 40.0], [57.0, 55.0, 35.0], [67.0, 65.0, 45.0]
    first = rank_ranges(np.array(scores), np.array(lows), np.array(highs), resamples=list(loaders.values()),
                        pair_ids=list(loaders), cache=cache)
    assert first.labels() == ["1", "2", "3"]
    assert [loaders[k].calls for k in "ABC"] == [1, 1, 0]
    # the tested pair is (B, A) in the order of lower bounds; -1: its second row, A, is ahead
    assert len(cache["keys"]) == 1 and cache["values"].tolist() == [-1]
    # D 41 [36,46] arrives, overlapping C only, ahead of it in every resample. A and B now return the
    # reverse (a cache keyed by submission trusts that a submission's resamples never change): their
    # outcome must come from the cache, and only C and D are loaded.
    loaders["A"].values, loaders["B"].values = base + 60, base + 62
    loaders["D"] = Loader(base + 41)
    second = rank_ranges(np.array(scores + [41.0]), np.array(lows + [36.0]), np.array(highs + [46.0]),
                         resamples=list(loaders.values()), pair_ids=list(loaders), cache=cache)
    assert second.labels() == ["1", "2", "4", "3"]
    assert [loaders[k].calls for k in "ABCD"] == [1, 1, 1, 1]
    assert len(cache["keys"]) == 2 and cache["values"].tolist() == [-1, -1]  # (B, A), (C, D)
    assert np.all(np.diff(cache["keys"]) > 0)  # kept sorted for the lookup
    # the same board without the cache reads the changed resamples: B ahead of A
    fresh = rank_ranges(np.array(scores + [41.0]), np.array(lows + [36.0]), np.array(highs + [46.0]),
                        resamples=list(loaders.values()))
    assert fresh.labels() == ["2", "1", "4", "3"]


def test_every_cached_outcome_is_found_again():
    # two cached pairs, (B, A) and (C, D); E arrives apart from all. A-B and C-D now return reversed
    # resamples: both outcomes must still come from the cache (none of A-D is loaded again)
    base = np.linspace(0, 1, WIDTH)
    loaders = {"A": Loader(base + 62), "B": Loader(base + 60), "C": Loader(base + 40), "D": Loader(base + 41)}
    scores, lows, highs = [62.0, 60.0, 40.0, 41.0], [57.0, 55.0, 35.0, 36.0], [67.0, 65.0, 45.0, 46.0]
    cache: dict = {}
    rank_ranges(np.array(scores), np.array(lows), np.array(highs), resamples=list(loaders.values()),
                pair_ids=list(loaders), cache=cache)
    assert len(cache["keys"]) == 2
    for k, v in {"A": base + 60, "B": base + 62, "C": base + 41, "D": base + 40}.items():
        loaders[k].values = v
    loaders["E"] = Loader(base + 10)
    ranks = rank_ranges(np.array(scores + [10.0]), np.array(lows + [5.0]), np.array(highs + [15.0]),
                        resamples=list(loaders.values()), pair_ids=list(loaders), cache=cache)
    assert ranks.labels() == ["1", "2", "4", "3", "5"]
    assert [loaders[k].calls for k in "ABCDE"] == [1, 1, 1, 1, 0]


def test_the_cache_starts_again_beyond_four_budgets(monkeypatch):
    # with a budget of 1, the cache keeps at most 4 outcomes: 4 are kept, 5 start it again
    import leaderboard.publishing.tie_groups as tie_groups

    monkeypatch.setattr(tie_groups, "MAX_PAIRED_PAIRS", 1)
    base = np.linspace(0, 1, WIDTH)

    def board(groups: int) -> dict:
        # `groups` separate clusters of two overlapping rows: one tested pair each
        scores = np.repeat(np.arange(groups) * 20.0, 2) + np.tile([1.0, 0.0], groups)
        resamples = [base + s for s in scores]
        cache: dict = {}
        rank_ranges(scores, scores - 2, scores + 2, resamples=resamples, pair_ids=[f"r{i}" for i in range(2 * groups)],
                    cache=cache)
        return cache

    assert len(board(4)["keys"]) == 4
    assert "keys" not in board(5)


def test_a_cache_without_pair_ids_is_not_used():
    base = np.linspace(0, 1, WIDTH)
    cache: dict = {}
    rank_ranges(np.array([62.0, 60.0]), np.array([57.0, 55.0]), np.array([67.0, 65.0]),
                resamples=[base + 62, base + 60], cache=cache)
    assert cache == {}


# ---------------------------------------------------------------- random boards against the rule written out


def rule_by_pairs(scores, lows, highs, resamples, keys, higher, decimals=1):
    """The module docstring's rule, pair by pair: interval separation, else a paired test for overlapping rows
    with the same key and resamples of the common width; equal shown scores share the widest range."""
    s, lo, hi = (np.asarray(x, float) for x in (scores, lows, highs))
    rs = [None if r is None else np.asarray(r, float) for r in resamples]
    if not higher:
        s, lo, hi = -s, -hi, -lo
        rs = [None if r is None else -r for r in rs]
    n = len(s)
    ahead_of = np.zeros((n, n), bool)  # ahead_of[j, i]: j ahead of i
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            if lo[j] > hi[i]:
                ahead_of[j, i] = True
            elif lo[i] > hi[j]:
                continue
            elif rs[i] is not None and rs[j] is not None and keys[i] == keys[j]:
                ahead_of[j, i] = (rs[j] > rs[i]).sum() > PAIRED_SHARE * len(rs[i])
    best = 1 + ahead_of.sum(axis=0)
    worst = n - ahead_of.sum(axis=1)
    shown = np.round(s, decimals)
    for value in np.unique(shown):
        group = shown == value
        best[group], worst[group] = best[group].min(), worst[group].max()
    return [best.tolist(), worst.tolist()]


@pytest.mark.parametrize("higher", [True, False])
@pytest.mark.parametrize("seed", range(6))
def test_random_boards_follow_the_rule_pair_by_pair(seed, higher):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 25))
    common = rng.normal(0, 1, 400)  # shared item noise: paired resamples are correlated, as real ones are
    true = rng.uniform(40, 60, n)
    resamples = [t + 2 * common + rng.normal(0, 0.3, 400) for t in true]
    scores = np.round(true + rng.normal(0, 0.2, n), 2)
    half = rng.uniform(0.5, 6, n)
    lows, highs = scores - half, scores + half
    for i in rng.choice(n, size=n // 5, replace=False):
        resamples[i] = None  # a paper row
    keys = [int(k) for k in rng.integers(0, 2, n)]
    if not higher:
        scores, lows, highs = -scores, -highs, -lows
        resamples = [None if r is None else -r for r in resamples]
    expected = rule_by_pairs(scores, lows, highs, resamples, keys, higher)
    ranks = rank_ranges(scores, lows, highs, higher_is_better=higher, resamples=resamples, pair_keys=keys)
    assert [ranks.best.tolist(), ranks.worst.tolist()] == expected
    # built in two steps through the cache (the last row arrives later): the same ranks
    cache: dict = {}
    ids = [f"s{i}" for i in range(n)]
    rank_ranges(scores[:-1], lows[:-1], highs[:-1], higher_is_better=higher, resamples=resamples[:-1],
                pair_keys=keys[:-1], pair_ids=ids[:-1], cache=cache)
    again = rank_ranges(scores, lows, highs, higher_is_better=higher, resamples=resamples, pair_keys=keys,
                        pair_ids=ids, cache=cache)
    assert [again.best.tolist(), again.worst.tolist()] == expected

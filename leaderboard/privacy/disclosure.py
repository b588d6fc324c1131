"""Disclosure control: what a public result record may show, so that hidden answers cannot be read
back from it.

Every public number (metric column, stratum cell, CI) stands for a set of items. Rules, applied to
every submitted result when it is made public (`Result.to_public_dict`):

1. k-rule: a number computed from fewer than k items (`LEADERBOARD_MIN_CELL`, default 5) is not
   shown; a stratum cell keeps its `n` only, a metric column becomes pending with the reason.
2. Complementary suppression: no suppressed number (nor any group of fewer than k items) may be
   derivable from the public ones by adding and subtracting (total minus the other cells of a
   partition, a parent minus its public children, ...). Every scorer hands over the item sets behind
   its numbers (`Cells`, built by `leaderboard.scoring.engine`); this is checked exactly with linear algebra
   over the "atoms" (items with the same memberships): while some combination of public cells is
   supported on fewer than k items, the smallest cell taking part in it is suppressed too. Numbers
   over the same items (a stratum cell and the metric column over it) are one number: hidden in
   every view at once. A stratum cell without an item set is not shown. A metric computed from
   others (a macro mean) is suppressed when any of its inputs is. Each hidden number says which
   rule hid it (`why_hidden`).
3. Held-out keys (`protocol.answers_held_out`): no stratum or metric built from a held-out column;
   the dataset fingerprint is an HMAC with the server secret (or, without a secret, a fingerprint of
   the public ids only); and, with a secret, each public value gets keyed Gaussian noise worth
   `LEADERBOARD_PUBLIC_NOISE` items (default 2), salted with the submission id, so that two probes
   differing in one item cannot be told apart by subtraction. Per-item scores and exact values stay
   private.
4. Secrets and hosts: protocol, notes and pending reasons pass `redact.public_value` (no
   credentials, tokens, endpoints, self-hosted host names or server paths).

Rules 1-2 hold for every submission (the README's promise; a 1-item cell is noise anyway); rule 3
only when answers are held out (with public answers there is nothing to hide and exact values keep
the CLI and the Space in agreement).
"""
from __future__ import annotations

import hashlib
import hmac
import functools
import itertools
import math
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import Any, Sequence

import numpy as np

from .redact import public_value

DEFAULT_MIN_CELL = 5
DEFAULT_NOISE_ITEMS = 2.0
SUPPRESSED = "suppressed"
WITHHELD = "withheld"
DEFAULT_BREAKDOWNS = 5
DERIVED = "derived"
NO_ITEM_SETS = "no-item-sets"
_REASONS = {
    "k-rule": "computed from fewer than {k} items; kept private so individual answers cannot be read back",
    "complementary": ("complementary suppression: together with the public numbers it would reveal a group of "
                      "fewer than {k} items"),
    "held-out": "built from held-out labels; not public",
    DERIVED: "a mean over a suppressed number",
    NO_ITEM_SETS: "the scorer gave no item set for it, so its disclosure cannot be checked",
}


def why_hidden(reason: str, k: int) -> str:
    """The public text of a suppression reason (the one that actually applied)."""
    return _REASONS[reason].format(k=k)


def subset_metrics(disclosure: "Disclosure", metrics: dict) -> set[str]:
    """Metrics over a part of their item set (a task, a modality...): those whose cell is not the
    whole universe. Whole-set metrics, metrics without item sets and means of subsets are not."""
    out = set()
    for cells in disclosure.cells:
        for j, key in enumerate(cells.keys):
            if key[0] == "metric" and key[1] in metrics and not cells.masks[:, j].all():
                out.add(key[1])
    return out - set(disclosure.derived)


def metric_key(name: str) -> tuple[str, ...]:
    return ("metric", name)


def cell_key(stratum: str, value: str) -> tuple[str, ...]:
    return ("stratum", stratum, str(value))


@dataclass
class Cells:
    """The item sets behind public numbers, over one universe of items (e.g. a benchmark's MCQs).

    masks: (items, cells) booleans; keys: one per column, `metric_key(name)` or `cell_key(stratum, value)`;
    sources: key -> the answer-key column the set was built from (a held-out column drops it)."""

    masks: np.ndarray
    keys: list[tuple[str, ...]]
    sources: dict[tuple[str, ...], str] = field(default_factory=dict)

    def __post_init__(self):
        self.masks = np.asarray(self.masks, dtype=bool).reshape(len(self.masks), len(self.keys))

    @classmethod
    def from_labels(cls, labels: dict[str, Sequence[Any]], metrics_over_all: Sequence[str] = (),
                    n: int | None = None) -> "Cells":
        """Cells of `aggregate.by_stratum`-style labels (a list label puts the item in each of its
        values; None is '(missing)'), plus metrics computed over every item."""
        n = n if n is not None else (len(next(iter(labels.values()))) if labels else 0)
        columns, keys, sources = [], [], {}
        for name in metrics_over_all:
            columns.append(np.ones(n, dtype=bool))
            keys.append(metric_key(name))
        for stratum, values in labels.items():
            groups: dict[str, np.ndarray] = {}
            for index, value in enumerate(values):
                for v in (value if isinstance(value, (list, tuple)) else [value]):
                    label = "(missing)" if v is None else str(v)
                    mask = groups.get(label)
                    if mask is None:  # one array per cell, not one per item
                        mask = groups[label] = np.zeros(n, dtype=bool)
                    mask[index] = True
            for label, mask in groups.items():
                columns.append(mask)
                keys.append(cell_key(stratum, label))
                sources[keys[-1]] = stratum
        return cls(np.column_stack(columns) if columns else np.zeros((n, 0), dtype=bool), keys, sources)


@dataclass
class Disclosure:
    """What the publication step needs besides the record; kept on the Result, never serialised."""

    cells: list[Cells] = field(default_factory=list)
    derived: dict[str, list[str]] = field(default_factory=dict)  # metric -> metrics it is computed from
    sources: dict[str, str] = field(default_factory=dict)  # metric -> answer-key column it is built from
    item_span: dict[str, float] = field(default_factory=dict)  # metric -> most one item can move n*value
    bounds: dict[str, tuple] = field(default_factory=dict)  # metric -> (low, high) of its values; None = open
    chance: dict[str, float] = field(default_factory=dict)  # metric -> what the best constant answer scores
    exact_fingerprint: str | None = None
    primary: str | None = None  # the benchmark's ranking metric (given by the benchmark: no registry lookup here)


@dataclass(frozen=True)
class Policy:
    min_cell: int = DEFAULT_MIN_CELL
    secret: bytes | None = None
    noise_items: float = DEFAULT_NOISE_ITEMS
    breakdowns_per_month: int = DEFAULT_BREAKDOWNS  # detailed results per account per 30 days

    def __post_init__(self):
        if self.min_cell < 1 or self.noise_items < 0:
            raise ValueError("the minimum public cell must be >= 1 item and the noise >= 0 items")

    @classmethod
    def from_settings(cls, settings) -> "Policy":
        secret = settings.secret.encode("utf-8") if getattr(settings, "secret", None) else None
        return cls(min_cell=settings.min_public_cell, secret=secret, noise_items=settings.public_noise_items,
                   breakdowns_per_month=settings.breakdowns_per_month)


# ---------------------------------------------------------------------------------------- planning
K_RULE = "k-rule"
COMPLEMENTARY = "complementary"
HELD_OUT = "held-out"
MAX_SUBSETS = 400_000  # small-group search budget; past it the plan suppresses conservatively


def derivable_suppression(cells: Cells, k: int, hidden: set | frozenset = frozenset(),
                          protected: set | frozenset = frozenset()) -> set[tuple[str, ...]]:
    """The keys `suppression_plan` hides."""
    return set(suppression_plan(cells, k, hidden, protected))


def suppression_plan(cells: Cells, k: int, hidden: set | frozenset = frozenset(),
                     protected: set | frozenset = frozenset(), whole: int | None = None) -> dict[tuple[str, ...], str]:
    """Key -> why it is hidden (K_RULE, HELD_OUT or COMPLEMENTARY), so that no cell with fewer than k
    items, and no group of fewer than k items, is public or derivable as a linear combination of
    public cells. Keys over the same items (a stratum cell and the metric column over it) are one
    number: hidden together. `protected` keys (the ranking metric and its inputs) are chosen as
    complements only when no other public cell takes part in the derivation. A universe of fewer than k
    items that is the whole split (`whole` items) keeps its totals: a split under k items is a toy, and
    hiding its total would hide everything; every other number over it is hidden."""
    masks, keys = cells.masks, cells.keys
    if not keys:
        return {}
    n = masks.sum(axis=0)
    if len(masks) < k:
        total = len(masks) == whole
        return {key: HELD_OUT if key in hidden else K_RULE for j, key in enumerate(keys)
                if key in hidden or not (total and n[j] == len(masks))}
    _, twin_of = np.unique(masks.T, axis=0, return_inverse=True)
    twin_of = np.asarray(twin_of).reshape(-1)
    reasons: dict[int, str] = {}

    def hide(j: int, reason: str) -> None:
        for t in np.flatnonzero(twin_of == twin_of[j]):
            reasons.setdefault(int(t), reason)

    for j, key in enumerate(keys):
        if key in hidden:
            hide(j, HELD_OUT)
    for j in range(len(keys)):
        if n[j] < k:
            hide(j, K_RULE)
    patterns, atom_of = np.unique(masks, axis=0, return_inverse=True)
    atom_of = np.asarray(atom_of).reshape(-1)
    sizes = np.bincount(atom_of, minlength=len(patterns))
    incidence = patterns.astype(np.float64)  # (atoms, cells): cell j's sum = sum of atom sums with incidence 1
    covered = patterns.any(axis=1)  # atoms in no cell at all are never shown
    while True:
        public = [j for j in range(len(keys)) if j not in reasons and n[j] > 0]
        basis = _row_space(incidence[:, public]) if public else np.zeros((len(patterns), 0))
        leak = _first_leak(incidence, basis, sizes, covered, sorted(reasons), k, n, keys, public)
        if leak is None:
            return {keys[j]: reason for j, reason in reasons.items()}
        # the public cells that take part in deriving it; hiding the smallest breaks the derivation
        coefficients = np.linalg.lstsq(incidence[:, public], leak, rcond=None)[0]
        involved = [j for j, c in zip(public, coefficients) if abs(c) > 1e-7]
        if not involved:  # cannot happen: a derivable vector is a combination of public cells
            return {key: reasons.get(j, COMPLEMENTARY) for j, key in enumerate(keys)}
        guarded = {int(twin_of[j]) for j, key in enumerate(keys) if key in protected}  # twins share protection
        candidates = [j for j in involved if int(twin_of[j]) not in guarded] or involved
        hide(min(candidates, key=lambda j: (n[j], -j)), COMPLEMENTARY)


def _row_space(matrix: np.ndarray) -> np.ndarray:
    """Orthonormal basis (atoms, r) of the span of the given cell columns."""
    if matrix.size == 0:
        return np.zeros((matrix.shape[0], 0))
    u, s, _ = np.linalg.svd(matrix, full_matrices=False)
    rank = int((s > 1e-9 * max(1.0, s[0])).sum())
    return u[:, :rank]


def _first_leak(incidence, basis, sizes, covered, suppressed, k, n, keys, public=None) -> np.ndarray | None:
    """A derivable vector (over atoms) supported on fewer than k items: first the cheap shapes (a
    suppressed small cell, the suppressed cells of one stratum together, a small atom), then any
    combination of small atoms (`_small_support_leak`)."""
    def in_span(vector):
        residual = vector - basis @ (basis.T @ vector)
        return float(np.abs(residual).max()) < 1e-7

    for j in suppressed:
        vector = incidence[:, j]
        if n[j] and n[j] < k and in_span(vector):
            return vector
    groups: dict[tuple, list[int]] = {}
    for j in suppressed:
        groups.setdefault(keys[j][:2] if keys[j][0] == "stratum" else ("metric",), []).append(j)
    for members in groups.values():
        union = incidence[:, members].any(axis=1).astype(np.float64)
        if len(members) > 1 and 0 < union @ sizes < k and in_span(union):
            return union
    if not basis.shape[1]:
        return None
    # an atom is derivable exactly when its unit vector lies in the span: |projection|^2 == 1
    weight = (basis ** 2).sum(axis=1)
    for a in np.flatnonzero((weight > 1 - 1e-7) & (sizes < k) & covered):
        vector = np.zeros(len(sizes))
        vector[a] = 1.0
        return vector
    leak = _structured_leak(incidence, basis, sizes, covered, k, keys, public or [])
    return leak if leak is not None else _small_support_leak(basis, sizes, covered, k)


def _structured_leak(incidence, basis, sizes, covered, k, keys, public) -> np.ndarray | None:
    """The usual shapes of a small derivable group, checked together: the intersection or difference
    of two cells, and a cell minus the public cells inside it (all of them, or those of one stratum:
    a parent minus its public children)."""
    inside = incidence.astype(bool) & covered[:, None]
    weight = sizes.astype(np.float64)
    shared = inside.T.astype(np.float64) @ (inside * weight[:, None])  # items two cells share
    n = np.diag(shared)
    candidates = []
    for a, b in zip(*np.nonzero((shared > 0) & (shared < k))):
        if a < b:
            candidates.append(inside[:, a] & inside[:, b])
    for a, b in zip(*np.nonzero((n[:, None] - shared > 0) & (n[:, None] - shared < k))):
        candidates.append(inside[:, a] & ~inside[:, b])
    public_set = np.zeros(len(keys), dtype=bool)
    public_set[public] = True
    contained = (shared >= n[None, :] - 1e-9) & (n[None, :] < n[:, None]) & public_set[None, :]  # [c, j]: j inside c
    for c in range(len(keys)):
        children = np.flatnonzero(contained[c])
        if not len(children):
            continue
        groups = {None: children}
        for j in children:
            groups.setdefault(keys[j][:2], []).append(j)
        for members in groups.values():
            candidates.append(inside[:, c] & ~inside[:, list(members)].any(axis=1))
    if not candidates:
        return None
    vectors = np.column_stack(candidates).astype(np.float64)
    small = (vectors.T @ weight > 0) & (vectors.T @ weight < k)
    vectors = vectors[:, small]
    for start in range(0, vectors.shape[1], 2000):
        chunk = vectors[:, start:start + 2000]
        residual = np.abs(chunk - basis @ (basis.T @ chunk)).max(axis=0)
        hits = np.flatnonzero(residual < 1e-7)
        if len(hits):
            return chunk[:, hits[0]]
    return None


def _small_support_leak(basis: np.ndarray, sizes: np.ndarray, covered: np.ndarray, k: int) -> np.ndarray | None:
    """Any derivable vector supported on atoms holding fewer than k items together, searched exhaustively
    while that takes at most MAX_SUBSETS sets (else None: the structured shapes were checked). A vector
    on atom set S is derivable iff P[S, S] is singular, P the projector off the public span. Only small
    atoms that take part in some derivable combination of small atoms are searched, smallest sets first."""
    small = np.flatnonzero(covered & (sizes < k))
    if not len(small):
        return None
    # a derivable vector on small atoms only is basis @ y with y killing the basis rows of the other atoms
    others = np.ones(len(sizes), dtype=bool)
    others[small] = False
    if others.any():
        _, s, vt = np.linalg.svd(basis[others], full_matrices=True)
        y = vt[int((s > 1e-9).sum()):].T
    else:
        y = np.eye(basis.shape[1])
    null = basis[small] @ y  # (small, d)
    if not null.shape[1]:
        return None
    active = small[np.abs(null).max(axis=1) > 1e-9]
    if sum(math.comb(len(active), size) for size in range(1, min(k - 1, len(active)) + 1)) > MAX_SUBSETS:
        return None
    gram = np.eye(len(active)) - basis[active] @ basis[active].T
    for size in range(1, min(k - 1, len(active)) + 1):
        subsets = _combinations(len(active), size)
        subsets = subsets[sizes[active[subsets]].sum(axis=1) < k]
        if not len(subsets):
            continue
        lowest = np.linalg.eigvalsh(gram[subsets[:, :, None], subsets[:, None, :]])[:, 0]
        hits = np.flatnonzero(lowest < 1e-9)
        if len(hits):
            subset = subsets[hits[0]]
            _, vectors = np.linalg.eigh(gram[np.ix_(subset, subset)])
            vector = np.zeros(len(sizes))
            vector[active[subset]] = vectors[:, 0]
            return vector
    return None


@functools.lru_cache(maxsize=32)
def _combinations(m: int, size: int) -> np.ndarray:
    return np.fromiter(itertools.chain.from_iterable(itertools.combinations(range(m), size)),
                       dtype=np.int64).reshape(-1, size)


def _ranking_keys(disclosure: Disclosure) -> set[tuple[str, ...]]:
    """The primary metric and the metrics it is a mean of: complementary suppression hides other cells
    first, so a result is not left unranked to protect a cell another cell could protect as well."""
    if disclosure.primary is None:  # a record without its benchmark's declaration: nothing to prefer
        return set()
    primary = disclosure.primary
    return {metric_key(primary), *(metric_key(m) for m in disclosure.derived.get(primary, ()))}


# ---------------------------------------------------------------------------------------- publishing
def publish(data: dict, disclosure: Disclosure | None, policy: Policy, salt: str = "", breakdowns: bool = True) -> dict:
    """The public view of a submitted result's dict (`asdict(Result)` without per-item scores).
    `breakdowns=False` (the account used its monthly budget of detailed results) withholds every
    stratum cell and every metric over a subset; whole-set metrics and means of subsets stay."""
    k = policy.min_cell
    protocol = data.get("protocol") or {}
    held_out = set(protocol.get("held_out_columns") or [])
    disclosure = disclosure or Disclosure()
    metric_n = dict(data.get("metric_n") or {})
    metrics, ci, pending = dict(data["metrics"]), dict(data.get("ci") or {}), dict(data.get("pending") or {})

    # held-out columns: neither strata nor metrics built from them
    strata = {s: cells for s, cells in (data.get("strata") or {}).items() if s not in held_out}
    hidden_metrics = {m for m, column in disclosure.sources.items() if column in held_out}

    # metric -> why hidden; stratum -> value -> why hidden (K_RULE, COMPLEMENTARY, HELD_OUT, DERIVED)
    suppressed_metrics: dict[str, str] = {}
    suppressed_cells: dict[str, dict[str, str]] = {s: {} for s in strata}
    protected = _ranking_keys(disclosure)
    for cells in disclosure.cells:
        hidden = {key for key, column in cells.sources.items() if column in held_out}
        hidden |= {metric_key(m) for m in hidden_metrics}
        for key, reason in suppression_plan(cells, k, hidden, protected, data.get("n_items")).items():
            if key[0] == "metric":
                suppressed_metrics.setdefault(key[1], reason)
            elif key[0] == "stratum" and key[1] in suppressed_cells:
                suppressed_cells[key[1]][key[2]] = reason
    for cells in disclosure.cells:  # metric n from the sets, where known
        for j, key in enumerate(cells.keys):
            if key[0] == "metric":
                metric_n.setdefault(key[1], int(cells.masks[:, j].sum()))
    in_sets = {key for cells in disclosure.cells for key in cells.keys}
    for stratum, values in strata.items():  # a cell no item set stands behind cannot be checked: not shown
        for value in values:
            if cell_key(stratum, value) not in in_sets:
                small = values[value].get("n", 0) < k
                suppressed_cells[stratum].setdefault(str(value), K_RULE if small else NO_ITEM_SETS)
    for name, value in metrics.items():
        n = metric_n.get(name, data.get("n_items", 0))
        # a metric over the whole split is exempt: a split smaller than k is a toy, and hiding its
        # total would hide everything
        if value is not None and n < k and n != data.get("n_items"):
            suppressed_metrics.setdefault(name, K_RULE)
    changed = True
    while changed:  # a mean of metrics is suppressed with any of its inputs
        changed = False
        for name, inputs in disclosure.derived.items():
            if name not in suppressed_metrics and set(suppressed_metrics) & set(inputs):
                suppressed_metrics[name] = DERIVED
                changed = True

    why_withheld = (f"{WITHHELD}: breakdowns are published for {policy.breakdowns_per_month} results per account "
                    "per 30 days; this one shows whole-set metrics only")
    if breakdowns and protocol.get("answers_held_out") and at_chance(data, disclosure, metric_n):
        # a constant-letter probe's breakdowns are the key's letter shares per subset
        breakdowns = False
        why_withheld = (f"{WITHHELD}: breakdowns are published for results clearly above what a constant answer "
                        "scores; this one shows whole-set metrics only")
    withheld = set() if breakdowns else subset_metrics(disclosure, metrics)
    for name in withheld - set(suppressed_metrics) - hidden_metrics:
        if metrics.get(name) is not None:
            metrics[name] = None
            ci.pop(name, None)
            pending[name] = why_withheld
    for name in set(suppressed_metrics) | hidden_metrics:
        if name not in metrics:
            continue
        had_value = metrics[name] is not None
        metrics[name] = None
        ci.pop(name, None)
        if name in hidden_metrics:
            pending[name] = "built from held-out labels; not public"
        elif had_value:
            pending[name] = f"{SUPPRESSED}: {why_hidden(suppressed_metrics[name], k)}"
    for name in hidden_metrics:
        metric_n.pop(name, None)

    public_strata = {}
    for stratum, values in strata.items():
        public_strata[stratum] = {
            value: ({"n": cell.get("n", 0), "metrics": {}, SUPPRESSED: True,
                     "reason": why_hidden(suppressed_cells[stratum][str(value)], k)}
                    if str(value) in suppressed_cells[stratum]
                    else {"n": cell.get("n", 0), "metrics": {}, WITHHELD: True} if not breakdowns else cell)
            for value, cell in values.items()}

    if protocol.get("answers_held_out") and policy.secret:
        metrics, ci, public_strata = _add_noise(metrics, ci, public_strata, metric_n, disclosure, policy, salt,
                                                data.get("n_items", 0))
    data = dict(data, metrics=metrics, ci=ci, pending=pending, strata=public_strata,
                metric_n={m: n for m, n in metric_n.items() if m in metrics})
    data["protocol"] = public_value(public_protocol(protocol, disclosure, policy, hidden_metrics))
    data["pending"] = public_value(data["pending"])
    data["notes"] = public_value(data.get("notes") or [])
    return data


def at_chance(data: dict, disclosure: Disclosure, metric_n: dict, z: float = 3.0) -> bool:
    """Whether a metric with a declared chance level is within z standard errors of it."""
    for name, chance in disclosure.chance.items():
        value, n = data["metrics"].get(name), metric_n.get(name, data.get("n_items", 0))
        if value is None or not n:
            continue
        p = min(max(chance / 100.0, 1e-6), 1 - 1e-6)
        if value <= chance + z * 100.0 * (p * (1 - p) / n) ** 0.5:
            return True
    return False


def public_protocol(protocol: dict, disclosure: Disclosure, policy: Policy, hidden_metrics=()) -> dict:
    protocol = dict(protocol)
    protocol["disclosure"] = {"min_cell": policy.min_cell,
                              "noise_items": policy.noise_items if protocol.get("answers_held_out") and policy.secret
                              else 0}
    if protocol.get("answers_held_out"):
        exact = disclosure.exact_fingerprint or protocol.get("dataset_fingerprint")
        if policy.secret and exact:
            protocol["dataset_fingerprint"] = keyed_fingerprint(policy.secret, exact)
        else:  # without a secret a fingerprint of held-out answers could be checked against guessed keys
            protocol["dataset_fingerprint"] = protocol.get("public_fingerprint")
    protocol.pop("public_fingerprint", None)
    return protocol


def keyed_fingerprint(secret: bytes, exact: str) -> str:
    return "hmac-sha256:" + hmac.new(secret, exact.encode("utf-8"), hashlib.sha256).hexdigest()[:16]


def noise_sd(noise_items: float, n: int, span: float = 100.0) -> float:
    """SD of the keyed noise on a public value over n items: `noise_items` items' worth of the metric's
    per-item span (the page says how large it is)."""
    return noise_items * span / max(n, 1)


def _add_noise(metrics, ci, strata, metric_n, disclosure, policy, salt, n_items):
    def noise(label: str, n: int, span: float) -> float:
        digest = hmac.new(policy.secret, f"{salt}\x00{label}".encode("utf-8"), hashlib.sha256).digest()
        u = (int.from_bytes(digest[:8], "big") + 0.5) / 2 ** 64
        return NormalDist().inv_cdf(u) * noise_sd(policy.noise_items, n, span)

    def shifted(value, label, n, span):
        if value is None:
            return None
        low, high = disclosure.bounds.get(label.rsplit(":", 1)[-1], (0.0, 100.0))  # undeclared: a percentage
        value = float(value) + noise(label, n, span)
        value = value if low is None else max(low, value)
        return round(value if high is None else min(high, value), 4)

    def items_behind(m):
        """A mean of T subset metrics moves by span/(T n_t) per item of subset t: its n is T min(n_t)."""
        inputs = [metric_n[i] for i in disclosure.derived.get(m, []) if metric_n.get(i)]
        return len(inputs) * min(inputs) if inputs else metric_n.get(m, n_items)

    metrics = {m: shifted(v, f"m:{m}", items_behind(m), disclosure.item_span.get(m, 100.0))
               for m, v in metrics.items()}
    ci = {m: [shifted(lo, f"lo:{m}", items_behind(m), disclosure.item_span.get(m, 100.0)),
              shifted(hi, f"hi:{m}", items_behind(m), disclosure.item_span.get(m, 100.0))]
          for m, (lo, hi) in ci.items()}
    out = {}
    for stratum, values in strata.items():
        out[stratum] = {}
        for value, cell in values.items():
            if cell.get(SUPPRESSED):
                out[stratum][value] = cell
                continue
            n = cell.get("n", 0)
            cell = dict(cell)
            cell["metrics"] = {m: shifted(v, f"s:{stratum}:{value}:{m}", n, disclosure.item_span.get(m, 100.0))
                               for m, v in (cell.get("metrics") or {}).items()}
            if "ci" in cell:
                cell["ci"] = {m: [shifted(b[0], f"slo:{stratum}:{value}:{m}", n, disclosure.item_span.get(m, 100.0)),
                                  shifted(b[1], f"shi:{stratum}:{value}:{m}", n, disclosure.item_span.get(m, 100.0))]
                              for m, b in cell["ci"].items()}
            out[stratum][value] = cell
    return metrics, ci, out

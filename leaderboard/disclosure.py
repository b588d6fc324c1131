"""Disclosure control: what a public result record may show, so that hidden answers cannot be read
back from it.

Every public number (metric column, stratum cell, CI) stands for a set of items. Rules, applied to
every submitted result when it is made public (`Result.to_public_dict`):

1. k-rule: a number computed from fewer than k items (`LEADERBOARD_MIN_CELL`, default 5) is not
   shown; a stratum cell keeps its `n` only, a metric column becomes pending with the reason.
2. Complementary suppression: no suppressed number (nor any group of fewer than k items) may be
   derivable from the public ones by adding and subtracting (e.g. total minus the other cells of a
   partition). When a benchmark hands over the item sets behind its numbers (`Cells`), this is
   checked exactly with linear algebra over the "atoms" (items with the same memberships): while a
   small group is a linear combination of public cells, the smallest cell taking part in that
   combination is suppressed too. Without `Cells`, each stratum is treated as a partition of all items and its
   suppressed cells are topped up, smallest first, until together they hold at least k items.
   A metric computed from others (a macro mean) is suppressed when any of its inputs is.
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
                    groups.setdefault(label, np.zeros(n, dtype=bool))[index] = True
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
def derivable_suppression(cells: Cells, k: int, hidden: set | frozenset = frozenset(),
                          protected: set | frozenset = frozenset()) -> set[tuple[str, ...]]:
    """Keys to suppress so that no cell with fewer than k items, and no group of fewer than k items
    with identical memberships, is public or derivable as a linear combination of public cells.
    `protected` keys (the ranking metric and its inputs) are chosen as complements only when no other
    public cell takes part in the derivation: hiding them would leave the result unranked."""
    masks, keys = cells.masks, cells.keys
    if not keys:
        return set()
    n = masks.sum(axis=0)
    suppressed = {j for j, key in enumerate(keys) if n[j] < k or key in hidden}
    patterns, atom_of = np.unique(masks, axis=0, return_inverse=True)
    atom_of = np.asarray(atom_of).reshape(-1)
    sizes = np.bincount(atom_of, minlength=len(patterns))
    incidence = patterns.astype(np.float64)  # (atoms, cells): cell j's sum = sum of atom sums with incidence 1
    covered = patterns.any(axis=1)  # atoms in no cell at all are never shown
    while True:
        public = [j for j in range(len(keys)) if j not in suppressed and n[j] > 0]
        basis = _row_space(incidence[:, public]) if public else np.zeros((len(patterns), 0))
        leak = _first_leak(incidence, basis, sizes, covered, sorted(suppressed), k, n, keys)
        if leak is None:
            return {keys[j] for j in suppressed}
        # the public cells that take part in deriving it; hiding the smallest breaks the derivation
        coefficients = np.linalg.lstsq(incidence[:, public], leak, rcond=None)[0]
        involved = [j for j, c in zip(public, coefficients) if abs(c) > 1e-7]
        if not involved:  # cannot happen: a derivable vector is a combination of public cells
            return {keys[j] for j in range(len(keys))}
        candidates = [j for j in involved if keys[j] not in protected] or involved
        suppressed.add(min(candidates, key=lambda j: (n[j], -j)))


def _row_space(matrix: np.ndarray) -> np.ndarray:
    """Orthonormal basis (atoms, r) of the span of the given cell columns."""
    if matrix.size == 0:
        return np.zeros((matrix.shape[0], 0))
    u, s, _ = np.linalg.svd(matrix, full_matrices=False)
    rank = int((s > 1e-9 * max(1.0, s[0])).sum())
    return u[:, :rank]


def _first_leak(incidence, basis, sizes, covered, suppressed, k, n, keys) -> np.ndarray | None:
    """The support (over atoms) of the first derivable small group: a suppressed cell with fewer than
    k items, the suppressed cells of one stratum (or all suppressed metrics) together holding fewer
    than k items, or a small atom."""
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
    if basis.shape[1]:
        # an atom is derivable exactly when its unit vector lies in the span: |projection|^2 == 1
        weight = (basis ** 2).sum(axis=1)
        for a in np.flatnonzero((weight > 1 - 1e-7) & (sizes < k) & covered):
            vector = np.zeros(len(sizes))
            vector[a] = 1.0
            return vector
    return None


def _ranking_keys(benchmark: str | None, disclosure: Disclosure) -> set[tuple[str, ...]]:
    """The primary metric and the metrics it is a mean of: complementary suppression hides other cells
    first, so a result is not left unranked to protect a cell another cell could protect as well."""
    from . import registry

    try:
        primary = registry.scorer(benchmark).primary_metric
    except Exception:  # an unknown benchmark (a foreign record): nothing to prefer
        return set()
    return {metric_key(primary), *(metric_key(m) for m in disclosure.derived.get(primary, ()))}


def partition_suppression(cells: dict[str, dict], k: int) -> dict[str, set[str]]:
    """Fallback without item sets: per stratum, cells below k, topped up smallest first until the
    suppressed cells hold at least k items together (so total minus the public cells covers >= k)."""
    out = {}
    for stratum, values in cells.items():
        sizes = {v: int(c.get("n", 0)) for v, c in values.items()}
        hidden = {v for v, size in sizes.items() if size < k}
        rest = sorted((size, v) for v, size in sizes.items() if v not in hidden)
        while hidden and sum(sizes[v] for v in hidden) < k and rest:
            hidden.add(rest.pop(0)[1])
        out[stratum] = hidden
    return out


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

    suppressed_metrics, suppressed_cells = set(), {s: set() for s in strata}
    protected = _ranking_keys(data.get("benchmark"), disclosure)
    if disclosure.cells:
        for cells in disclosure.cells:
            hidden = {key for key, column in cells.sources.items() if column in held_out}
            hidden |= {metric_key(m) for m in hidden_metrics}
            for key in derivable_suppression(cells, k, hidden, protected):
                if key[0] == "metric":
                    suppressed_metrics.add(key[1])
                elif key[0] == "stratum" and key[1] in suppressed_cells:
                    suppressed_cells[key[1]].add(key[2])
        for cells in disclosure.cells:  # metric n from the sets, where known
            for j, key in enumerate(cells.keys):
                if key[0] == "metric":
                    metric_n.setdefault(key[1], int(cells.masks[:, j].sum()))
    else:
        for stratum, values in partition_suppression(strata, k).items():
            suppressed_cells[stratum] |= values
    for name, value in metrics.items():
        n = metric_n.get(name, data.get("n_items", 0))
        # a metric over the whole split is exempt: a split smaller than k is a toy, and hiding its
        # total would hide everything
        if value is not None and n < k and n != data.get("n_items"):
            suppressed_metrics.add(name)
    changed = True
    while changed:  # a mean of metrics is suppressed with any of its inputs
        changed = False
        for name, inputs in disclosure.derived.items():
            if name not in suppressed_metrics and suppressed_metrics & set(inputs):
                suppressed_metrics.add(name)
                changed = True

    why_withheld = (f"{WITHHELD}: breakdowns are published for {policy.breakdowns_per_month} results per account "
                    "per 30 days; this one shows whole-set metrics only")
    if breakdowns and protocol.get("answers_held_out") and at_chance(data, disclosure, metric_n):
        # a constant-letter probe's breakdowns are the key's letter shares per subset
        breakdowns = False
        why_withheld = (f"{WITHHELD}: breakdowns are published for results clearly above what a constant answer "
                        "scores; this one shows whole-set metrics only")
    withheld = set() if breakdowns else subset_metrics(disclosure, metrics)
    for name in withheld - suppressed_metrics - hidden_metrics:
        if metrics.get(name) is not None:
            metrics[name] = None
            ci.pop(name, None)
            pending[name] = why_withheld
    for name in suppressed_metrics | hidden_metrics:
        if name not in metrics:
            continue
        had_value = metrics[name] is not None
        metrics[name] = None
        ci.pop(name, None)
        if name in hidden_metrics:
            pending[name] = "built from held-out labels; not public"
        elif had_value:
            pending[name] = (f"{SUPPRESSED}: computed from fewer than {k} items, or derivable from other public "
                             "numbers; kept private so hidden answers cannot be read back")
    for name in hidden_metrics:
        metric_n.pop(name, None)

    public_strata = {}
    for stratum, values in strata.items():
        public_strata[stratum] = {
            value: ({"n": cell.get("n", 0), "metrics": {}, SUPPRESSED: True} if value in suppressed_cells[stratum]
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

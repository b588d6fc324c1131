"""Plain-text rendering of a result for the terminal."""
from __future__ import annotations

from ..scoring.benchmark import Benchmark
from ..scoring.result import Result


def _cell(result: Result, name: str) -> str:
    value = result.metrics.get(name)
    if value is None:
        return "pending"
    lo_hi = result.ci.get(name)
    fmt = "{:5.1f}" if abs(value) >= 1 or value == 0 else "{:.3f}"  # fractions such as ECE keep their digits
    text = fmt.format(value)
    return f"{text} [{fmt.format(lo_hi[0]).strip()}, {fmt.format(lo_hi[1]).strip()}]" if lo_hi else text


def render_result(benchmark: Benchmark, result: Result) -> str:
    groups: dict[str, list] = {}
    for metric in benchmark.metrics:
        groups.setdefault(metric.group, []).append(metric)
    stems = list(dict.fromkeys(m.name.rsplit("_", 1)[0] for m in benchmark.metrics))
    modes = list(groups)
    grid = len(modes) > 1 and all(f"{stem}_{mode}" in {m.name for m in benchmark.metrics} for stem in stems for mode in modes)
    if not grid:  # metric names are not <stem>_<group> in every group: one metric per line
        return _render_list(benchmark, result)
    width = max(len("metric"), *(len(s) for s in stems)) + 2
    lines = _header(benchmark, result)
    lines.append("metric".ljust(width) + "".join(m.ljust(22) for m in modes))
    for stem in stems:
        lines.append(stem.ljust(width) + "".join(_cell(result, f"{stem}_{mode}").ljust(22) for mode in modes))
    lines.append("values x100, 95% percentile bootstrap CI in brackets")
    return "\n".join(lines + _footer(benchmark, result))


def _header(benchmark: Benchmark, result: Result) -> list[str]:
    return [f"{benchmark.pretty_name} - {result.model.name}",
            f"items {result.n_items}, answered {result.n_answered} (coverage {100 * (result.coverage or 0):.1f}%), "
            f"parse failures {result.parse_failures}", ""]


def _render_list(benchmark: Benchmark, result: Result) -> str:
    width = max(len(m.name) for m in benchmark.metrics) + 2
    lines = _header(benchmark, result)
    lines += [f"{m.name.ljust(width)}{_cell(result, m.name)}" for m in benchmark.metrics]
    lines.append("values as named (x100 for rates), 95% percentile bootstrap CI in brackets")
    return "\n".join(lines + _footer(benchmark, result))


def _footer(benchmark: Benchmark, result: Result) -> list[str]:
    lines = []
    reasons = sorted(set(result.pending.values()))
    if reasons:
        lines += ["", "pending:"] + [f"  - {r}" for r in reasons]
    if not result.protocol.get("comparable_to_paper", True):
        lines += ["", "NOT comparable with the paper's numbers:"] + [f"  - {r}" for r in result.protocol.get("not_comparable_because", [])]
    primary = benchmark.stratum_metric
    if result.strata:
        lines += ["", f"by stratum ({primary}):"]
        for stratum, cells in result.strata.items():
            parts = [f"{v} {c['metrics'].get(primary, float('nan')):.1f} (n={c['n']})" for v, c in cells.items()
                     if primary in c["metrics"]]
            if parts:
                lines.append(f"  {stratum}: " + "; ".join(parts))
    return lines

"""One clinical-specialty taxonomy across the benchmarks, for the cross-benchmark model profile.

Each benchmark slices its cases its own way (disease category, specialty, organ system, department...) and
declares, in its own folder, which stratum maps onto `SPECIALTIES` and how (`Benchmark.specialty_stratum`,
`specialty_map`), or that the whole benchmark is one specialty (`whole_specialty`). A value with no sensible
specialty is left out of the profile, never forced into a neighbour: `unmapped` lists them. Several values
mapping to one specialty are pooled, weighted by n when every n is known, else left as a gap with its reason.
"""
from __future__ import annotations

SPECIALTIES = (
    "Cardiology", "Dermatology", "Endocrinology", "Gastroenterology", "Infectious disease", "Internal medicine",
    "Emergency medicine", "Nephrology & urology", "Neurology", "Obstetrics & gynaecology", "Oncology",
    "Ophthalmology", "Musculoskeletal & orthopaedics", "Paediatrics & congenital", "Psychiatry", "Pulmonology",
    "Radiology & imaging", "Surgery", "Traditional Chinese medicine",
)

from ..scoring import registry


def stratum_of(benchmark: str) -> str | None:
    """The stratum a benchmark maps onto the specialty list, or None."""
    return registry.scorer(benchmark).specialty_stratum or None


def whole_of(benchmark: str) -> str | None:
    """The specialty the whole benchmark is (its primary metric is that cell), or None."""
    return registry.scorer(benchmark).whole_specialty or None


def specialty(benchmark: str, value: str) -> str | None:
    return registry.scorer(benchmark).specialty_map.get(str(value))


def specialty_sources() -> str:
    """What maps onto the list, in words: each benchmark's stratum, or the one specialty a whole benchmark is."""
    parts, wholes = [], []
    for name in registry.names():
        bench = registry.scorer(name)
        if bench.specialty_stratum:
            parts.append(f"{bench.pretty_name} {bench.stratum_label(bench.specialty_stratum).lower()}")
        elif bench.whole_specialty:
            wholes.append(f"{bench.pretty_name} is {bench.whole_specialty.lower()} as a whole")
    return ", ".join(parts) + (" map onto it" if parts else "") + ("; " + "; ".join(wholes) if wholes else "")


def unmapped(benchmark: str, values) -> list[str]:
    """Values of the benchmark's stratum that the profile leaves out (no specialty in the list)."""
    return [v for v in values if specialty(benchmark, v) is None]


def pooled(cells: dict[str, dict], benchmark: str, metric: str) -> dict[str, tuple[float | None, int | None, str]]:
    """specialty -> (value, n, note) from one record's cells of the benchmark's stratum. Cells without a value
    (hidden, not reported) stay gaps; several values of one specialty are pooled by n."""
    groups: dict[str, list[dict]] = {}
    for value, cell in cells.items():
        name = specialty(benchmark, value)
        if name:
            groups.setdefault(name, []).append(cell)
    out = {}
    for name, parts in groups.items():
        values = [(c.get("metrics") or {}).get(metric) for c in parts]
        ns = [c.get("n") for c in parts]
        if any(v is None for v in values):
            out[name] = (None, None, "hidden or not reported")
        elif len(parts) == 1:
            out[name] = (float(values[0]), ns[0], "")
        elif all(ns):
            total = sum(ns)
            out[name] = (sum(v * n for v, n in zip(values, ns)) / total, total, f"{len(parts)} strata pooled by n")
        else:
            out[name] = (None, None, "several strata without n: not pooled")
    return out

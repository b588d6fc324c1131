"""One clinical-specialty taxonomy across the benchmarks, for the cross-benchmark model profile.

Each benchmark slices its cases its own way: MedReaMM by disease category (its code calls it "department"),
ClinMM by specialty, Med-CMR by organ system, MedRealMM by (Chinese) department; X-PCR is ophthalmology as a
whole. `STRATA` names the stratum read per benchmark and maps each of its values onto `SPECIALTIES`. A value
with no sensible specialty (Med-CMR's "Other / NA", ClinMM's "Radiology" when it means the imaging service
rather than organs, a department outside the list) is left out of the profile, never forced into a neighbour:
`unmapped` lists them. Several values mapping to one specialty (Med-CMR's Muscular + Skeletal) are pooled,
weighted by n when every n is known, else left as a gap with its reason.
"""
from __future__ import annotations

SPECIALTIES = (
    "Cardiology", "Dermatology", "Endocrinology", "Gastroenterology", "Infectious disease", "Internal medicine",
    "Emergency medicine", "Nephrology & urology", "Neurology", "Obstetrics & gynaecology", "Oncology",
    "Ophthalmology", "Musculoskeletal & orthopaedics", "Paediatrics & congenital", "Psychiatry", "Pulmonology",
    "Radiology & imaging", "Surgery", "Traditional Chinese medicine",
)

STRATA: dict[str, tuple[str, dict[str, str]]] = {  # benchmark -> (stratum, value -> specialty)
    "medreamm": ("disease_category", {
        "Cardiovascular": "Cardiology", "Dermatologic": "Dermatology", "Endocrine/Metabolic": "Endocrinology",
        "Endocrine": "Endocrinology", "Gastrointestinal": "Gastroenterology", "Infectious": "Infectious disease",
        "Musculoskeletal": "Musculoskeletal & orthopaedics", "Orthopedic": "Musculoskeletal & orthopaedics",
        "Neoplastic": "Oncology", "Neurological": "Neurology", "Congenital": "Paediatrics & congenital",
        "Respiratory": "Pulmonology", "Renal": "Nephrology & urology"}),
    "clinmm": ("specialty", {
        "Dermatology": "Dermatology", "Emergency Medicine": "Emergency medicine",
        "Internal Medicine": "Internal medicine", "Nephrology": "Nephrology & urology", "Neurology": "Neurology",
        "Oncology": "Oncology", "Ophthalmology": "Ophthalmology", "Radiology": "Radiology & imaging"}),
    "medcmr": ("organ_system", {
        "Cardiovascular": "Cardiology", "Digestive": "Gastroenterology", "Endocrine": "Endocrinology",
        "Integumentary": "Dermatology", "Muscular": "Musculoskeletal & orthopaedics",
        "Skeletal": "Musculoskeletal & orthopaedics", "Nervous": "Neurology",
        "Reproductive": "Obstetrics & gynaecology", "Respiratory": "Pulmonology", "Urinary": "Nephrology & urology"}),
    "medrealmm": ("department", {
        "中医科": "Traditional Chinese medicine", "儿科": "Paediatrics & congenital", "妇科": "Obstetrics & gynaecology",
        "产科": "Obstetrics & gynaecology", "妇产科": "Obstetrics & gynaecology", "皮肤科": "Dermatology",
        "皮肤性病科": "Dermatology", "眼科": "Ophthalmology", "精神心理科": "Psychiatry", "精神科": "Psychiatry",
        "骨科": "Musculoskeletal & orthopaedics", "外科": "Surgery", "心血管内科": "Cardiology", "心内科": "Cardiology",
        "消化内科": "Gastroenterology", "内分泌科": "Endocrinology", "神经内科": "Neurology", "肿瘤科": "Oncology",
        "呼吸内科": "Pulmonology", "肾内科": "Nephrology & urology", "泌尿外科": "Nephrology & urology",
        "感染科": "Infectious disease", "急诊科": "Emergency medicine", "内科": "Internal medicine"}),
}
WHOLE = {"xpcr": "Ophthalmology"}  # the whole benchmark is one specialty: its primary metric is that cell


def specialty(benchmark: str, value: str) -> str | None:
    stratum = STRATA.get(benchmark)
    return stratum[1].get(str(value)) if stratum else None


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

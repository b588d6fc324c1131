"""Writes the dataset card (README.md): YAML `configs` + `dataset_info` built with datasets' own
classes, then a body with license, provenance, gating, fields, stratum counts, usage and checksums."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from datasets import DatasetInfo, Features, SplitDict, SplitInfo
from datasets.info import DatasetInfosDict
from datasets.utils.metadata import MetadataConfigs
from huggingface_hub import DatasetCard, DatasetCardData

from .adapter import Adapter, ConfigSpec
from .parquet_writer import SplitFiles
from .release_report import ReleaseReport


@dataclass
class ConfigOutcome:
    spec: ConfigSpec
    features: Features
    split: SplitFiles
    counts: dict[str, Counter] = field(default_factory=dict)


def size_category(n: int) -> str:
    for bound, label in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M")):
        if n < bound:
            return label
    return "1M<n<10M"


def _card_data(adapter: Adapter, outcomes: list[ConfigOutcome], gated: bool, answers: bool) -> DatasetCardData:
    facts = adapter.facts
    total = sum(o.split.num_examples for o in outcomes)
    extra = {}
    if gated:
        extra = {
            "extra_gated_heading": f"Request access to {facts.pretty_name}",
            "extra_gated_prompt": facts.gated_prompt,
            "extra_gated_fields": {
                "Name": "text",
                "Affiliation": "text",
                "Intended use": {"type": "select", "options": ["Research evaluation", "Education", "Other"]},
                "I will not attempt to re-identify any patient": "checkbox",
                "I will respect the licenses of the original sources": "checkbox",
            },
            "extra_gated_button_content": "Request access",
        }
    data = DatasetCardData(
        pretty_name=facts.pretty_name + (" (answer key)" if answers else ""),
        license=facts.license,
        license_name=facts.license_name,
        license_link=facts.license_link,
        language=list(facts.language),
        task_categories=list(facts.task_categories),
        tags=list(facts.tags) + (["answer-key"] if answers else []),
        size_categories=[size_category(total)],
        **extra,
    )
    configs = MetadataConfigs(
        {
            o.spec.name: {
                "data_files": [{"split": o.spec.split, "path": f"{o.spec.data_dir}/{o.spec.split}-*"}],
                **({"default": True} if o.spec.default else {}),
            }
            for o in outcomes
        }
    )
    configs.to_dataset_card_data(data)
    infos = DatasetInfosDict()
    for o in outcomes:
        splits = SplitDict()
        splits.add(SplitInfo(name=o.spec.split, num_bytes=o.split.num_bytes, num_examples=o.split.num_examples))
        infos[o.spec.name] = DatasetInfo(
            features=o.features,
            splits=splits,
            download_size=o.split.download_size,
            dataset_size=o.split.num_bytes,
            config_name=o.spec.name,
        )
    infos.to_dataset_card_data(data)
    return data


def _counts_section(outcomes: list[ConfigOutcome]) -> str:
    parts = []
    for o in outcomes:
        for stratum, counter in o.counts.items():
            rows = "\n".join(f"| {_cell(value)} | {n:,} |" for value, n in _ordered(counter))
            parts.append(f"**{stratum}** (config `{o.spec.name}`)\n\n| value | count |\n|---|---:|\n{rows}\n")
    return "\n".join(parts) or "_No strata declared._\n"


def _ordered(counter: Counter) -> list:
    """Ordinal strata (years, counts, bins like '5-10') by value; categories by frequency."""
    def number(value):
        try:
            return float(str(value).split("-")[0])
        except ValueError:
            return None
    if all(number(v) is not None for v in counter if v is not None):
        return sorted(counter.items(), key=lambda kv: (kv[0] is None, number(kv[0]) if kv[0] is not None else 0))
    return sorted(counter.items(), key=lambda kv: (-kv[1], str(kv[0])))


def _cell(value) -> str:
    return "(missing)" if value is None else str(value).replace("|", "\\|")


def render(adapter: Adapter, outcomes: list[ConfigOutcome], *, repo_id: str, gated: bool, answers: bool,
           sample: bool, checksums: list[dict], image_summary: dict, tool_versions: dict, held_out: bool,
           report: ReleaseReport | None = None, strict: bool = False) -> str:
    facts = adapter.facts
    data = _card_data(adapter, outcomes, gated, answers)
    config_rows = "\n".join(
        f"| `{o.spec.name}` | `{o.spec.split}` | {o.split.num_examples:,} | {len(o.split.files)} | {o.spec.description} |"
        for o in outcomes
    )
    fields = "\n".join(
        f"| `{name}` | `{_feature_type(feat)}` | {facts.field_docs.get(name, '')} |"
        for name, feat in outcomes[0].features.items()
    )
    sample_banner = (
        "> **SAMPLE.** This folder was built from the small synthetic sample release shipped with the "
        f"project (`benchmarks/{adapter.name}/sample/`). It is NOT the benchmark: cases and images are fictional "
        "stand-ins in the authors' format, for trying the pipeline offline.\n\n" if sample else ""
    )
    answers_note = ""
    if answers:
        answers_note = (
            f"This repository holds only the answer fields of `{repo_id.removesuffix('-answers')}`, split out "
            "with `--hold-out-answers`. It is read by the leaderboard's scorer only; keep it private.\n\n"
        )
    elif held_out:
        answers_note = (
            "Answer fields (" + ", ".join(f"`{c}`" for c in adapter.answer_columns) + ") are held out in a "
            f"separate private repository (`{repo_id}-answers`) read only by the leaderboard's scorer.\n\n"
        )
    checksum_rows = "\n".join(f"| `{c['path']}` | {c['bytes']:,} | `{c['sha256']}` |" for c in checksums)
    versions = ", ".join(f"{k} {v}" for k, v in tool_versions.items())
    gating = (
        "Access is **gated** (manual approval): the source material is patient case data. Requesters agree "
        "not to attempt re-identification and to use the data for research evaluation only."
        if gated else "Not gated."
    )
    body = f"""# {data.pretty_name}

{sample_banner}{facts.summary}

{answers_note}- Paper: [{facts.paper_title}]({facts.paper_url})
- Original code/release: {facts.code_url}
- Requires `datasets>=4.0` (the `List` feature type).

## License and provenance

**License:** `{facts.license}`{f" ({facts.license_name})" if facts.license_name else ""}. {facts.license_note}

**Provenance:** {facts.provenance}

**Gating:** {gating}

## Configs

| config | split | rows | shards | description |
|---|---|---:|---:|---|
{config_rows}

## Usage

From inside the folder that holds this dataset folder (a local folder wins over the Hub):

```python
{adapter.usage_example(repo_id.split("/")[-1], outcomes[0].spec.name)}
```

Once published:

```python
{adapter.usage_example(repo_id if "/" in repo_id else "<org>/" + repo_id, outcomes[0].spec.name)}
```

Streaming works too: `load_dataset(..., split="test", streaming=True)`.

## Fields (config `{outcomes[0].spec.name}`)

| field | type | description |
|---|---|---|
{fields}

## Counts per stratum

{_counts_section(outcomes)}
## Build report

{_report_section(adapter, report or ReleaseReport(), strict, held_out, answers)}
## Build

Built by `python -m dataset_builders build {adapter.name}` ({versions}).

Images: {image_summary.get('count', 0):,} files, {image_summary.get('bytes', 0):,} bytes, combined SHA-256 `{image_summary.get('sha256', '')}` (over the sorted per-image hashes).

| source file | bytes | sha256 |
|---|---:|---|
{checksum_rows}

## Citation

```bibtex
{facts.bibtex}
```
"""
    return _assemble(data, body)


def _report_section(adapter: Adapter, report: ReleaseReport, strict: bool, held_out: bool, answers: bool) -> str:
    if strict:
        return ("Built with `--strict`: every key of every record is known to the builder, every value of a "
                "field with a known vocabulary is listed in it, and every record is as the paper describes.\n")
    where = ""
    if held_out:
        where = " (in the answer-key folder: an unknown key may hold an answer)" if not answers else ""
    hide = () if answers else adapter.answer_columns
    return ("Built leniently: unknown keys, unlisted values and usable records unlike the paper's description are "
            "kept and listed here; `--strict` refuses them.\n\n"
            + report.markdown(hide_first_for=hide, sidecar_note=where))


def _assemble(data: DatasetCardData, body: str) -> str:
    card = DatasetCard(f"---\n{data.to_yaml()}\n---\n\n{body}")
    return str(card)


def _feature_type(feature) -> str:
    text = repr(feature)
    return text if len(text) <= 80 else text[:77] + "..."


def write_card(folder: Path, text: str) -> None:
    (folder / "README.md").write_text(text, encoding="utf-8")

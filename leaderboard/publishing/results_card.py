"""The dataset card (README.md) of the public results: one config per benchmark (its shards), every column.
Written at the root of the store folder and of the public Hub repo, so `load_dataset(<folder or repo>, <benchmark>)`
reads the board's rows. Generated from the registry, so it is the same bytes on every worker."""
from __future__ import annotations

COLUMNS = (
    ("submission_id", "string", "the submission's id (also its id on the board and in the Space's status table)"),
    ("benchmark", "string", "the benchmark's id (the config name)"),
    ("source", "string", "`submission` (stored results are submissions; paper rows live in the project's repo)"),
    ("model", "struct", "name, link, organisation, access (`open`/`proprietary`), domain (`general`/`medical`), "
                        "reasoning (bool), input_modality (`multimodal`/`text-only`), params_b (billions); null when "
                        "not given"),
    ("metrics", "struct<metric: float64>", "one field per metric id of the benchmark (below); null = not public "
                                           "(see `pending` for why)"),
    ("ci", "struct<metric: list<float64>>", "95% bootstrap CI [low, high] per metric; null when none"),
    ("metric_n", "struct<metric: int64>", "items each metric is computed from"),
    ("pending", "struct<metric: string>", "why a metric has no public value (not scored, suppressed, withheld...)"),
    ("cell_flags", "struct<metric: string>", "irregularity notes per metric (paper rows; null for submissions)"),
    ("n_items", "int64", "items in the split the submission was scored on"),
    ("n_answered", "int64", "items the submission answered"),
    ("parse_failures", "int64", "answers that could not be parsed"),
    ("coverage", "float64", "n_answered / n_items, rounded to 6 decimals"),
    ("strata", "list<struct>", "stratum cells: stratum, value, n, metrics (list of {name, value}), ci (list of "
                               "{name, low, high}, null when none), suppressed / withheld (true when hidden, "
                               "else null), reason (why hidden)"),
    ("protocol", "string (JSON)", "how it was scored: comparable_to_paper, not_comparable_because, "
                                  "dataset_fingerprint, run_settings, disclosure, ... (a JSON object)"),
    ("notes", "list<string>", "notes shown with the result"),
    ("created_at", "string", "when the submission was made (ISO 8601, UTC)"),
    ("schema_version", "int64", "version of the public record"),
    ("stored_at", "string", "when this row was written (ISO 8601, UTC, microseconds); a rescore writes a new row "
                            "and the latest row of a submission_id is the current one"),
)


def card() -> str:
    from ..scoring import registry

    configs = "\n".join(f"- config_name: {name}\n  data_files:\n  - split: train\n    path: results/{name}/data/*.parquet"
                        for name in registry.names())
    lines = ["---", "configs:", configs, "license: other", "pretty_name: Leaderboard results", "---", "",
             "# Leaderboard results", "",
             "One row per stored submission, exactly the public record the leaderboard shows (disclosure control "
             "already applied: small cells suppressed, held-out noise added; per-item scores are never here). "
             "One config per benchmark:", "", "```python",
             "from datasets import load_dataset", f"rows = load_dataset(REPO_OR_FOLDER, \"{registry.names()[0]}\", "
             "split=\"train\")", "```", "",
             "Shards: `results/<benchmark>/data/*.parquet`; a rescore adds a row with a later `stored_at` (keep the "
             "latest row per `submission_id`; compaction drops older rows).", "", "## Columns", "",
             "| column | type | meaning |", "|---|---|---|"]
    lines += [f"| `{name}` | {kind} | {meaning} |" for name, kind, meaning in COLUMNS]
    lines += ["", "## Metric ids per benchmark (fields of `metrics`, `ci`, `metric_n`, `pending`, `cell_flags`)", ""]
    for name, bench in registry.scorers().items():
        lines.append(f"- **{name}** ({bench.pretty_name}; ranked by `{bench.primary_metric}`): "
                     + ", ".join(f"`{m.name}` ({m.label})" for m in bench.metrics))
    return "\n".join(lines) + "\n"

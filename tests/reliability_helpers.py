"""Shared by the reliability tests and bench/space_load.py, bench/judge_faults.py: a Space launcher that
takes extra environment and can be SIGKILLed, distinct prediction files, and store/table integrity checks."""
from __future__ import annotations

import json
import re
from pathlib import Path

from space_server import ROOT, SpaceServer

EXAMPLE_MEDREAMM = ROOT / "submissions" / "medreamm" / "example_predictions.jsonl"


class Space(SpaceServer):
    """The test Space with a quota high enough for load runs."""

    default_quota = "1000"


def variant_files(folder: Path, n: int) -> list[Path]:
    """n MedReaMM prediction files with distinct contents (so distinct hashes) and scores on five levels:
    file k replaces the lists of the first k % 5 cases with one wrong diagnosis naming k."""
    lines = [json.loads(line) for line in EXAMPLE_MEDREAMM.read_text().splitlines() if line.strip()]
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for k in range(n):
        rows = [dict(row, diagnoses=[f"Load variant {k}-{j}"]) if j < k % 5 else dict(row) for j, row in enumerate(lines)]
        if k % 5 == 0:  # still distinct: a variant in the last (10th) slot of the first case
            rows[0] = dict(rows[0], diagnoses=rows[0]["diagnoses"][:9] + [f"Load variant {k}"])
        path = folder / f"preds-{k:03d}.jsonl"
        path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
        paths.append(path)
    return paths


def check_store(root: Path) -> dict[str, int]:
    """Every JSON under the store parses, no temporary file is left behind; counts per area (results: rows of the
    result shards, the latest per submission)."""
    from leaderboard.publishing.result_shards import read_folder

    bad = []
    for path in root.rglob("*.json"):
        try:
            json.loads(path.read_text(encoding="utf-8"))
        except ValueError:
            bad.append(str(path))
    assert not bad, f"corrupt JSON in the store: {bad}"
    leftovers = [str(p) for p in root.rglob("*.tmp")]
    assert not leftovers, f"temporary files left behind: {leftovers}"
    private = root / "private"
    return {"queue": len(list((private / "queue").glob("*.json"))),
            "results": sum(t.num_rows for t in map(read_folder, (root / "results").glob("*/data")) if t is not None),
            "uploads": len([p for p in (private / "uploads").glob("*") if p.is_dir()]) if (private / "uploads").is_dir() else 0,
            "per_item": len(list((private / "per_item").glob("*.parquet"))),
            "bootstrap": len(list((private / "bootstrap").glob("*.npy")))}


def check_ranks(rows: list[dict], primary: str, higher_is_better: bool = True) -> None:
    """Sorted best first, no row twice, rank labels `a` or `a-b` that contain the row's position and never
    go backwards."""
    values = [r[primary] for r in rows]
    ordered = sorted(values, reverse=higher_is_better)
    assert values == ordered, "table not sorted by the primary metric"
    keys = [(r["model"], r.get("id") or "", r["source"]) for r in rows]
    assert len(keys) == len(set(keys)), "a row appears twice"
    ids = [r["id"] for r in rows if r.get("id")]
    assert len(ids) == len(set(ids)), "a submission id appears twice"
    for position, row in enumerate(rows, start=1):
        # rows ahead beyond doubt score higher and rows clearly behind score lower, so the range holds the position
        match = re.fullmatch(r"(\d+)(?:[-–](\d+))?", str(row["rank"]))
        assert match, f"bad rank label {row['rank']!r}"
        low, high = int(match.group(1)), int(match.group(2) or match.group(1))
        assert low <= position <= high, f"rank {row['rank']} at position {position}"


def table_rows(client, benchmark: str, columns: list[str], search: str = "", sample: bool = False) -> list[dict]:
    """The drawn table (main board, or the sample-data board) as dicts keyed like the downloads: `rank` (the
    shown range), `model`, `source`, `id` and metric ids."""
    from leaderboard.scoring import registry

    filters = ("any", "any", "any", "any", "any", ["paper", "submission", "human"], False, search, columns)
    if sample:
        data = client.predict(True, *filters, api_name=f"/sample_table_{benchmark}")
    else:
        data = client.predict(*filters, api_name=f"/table_{benchmark}")[0]
    data = data.get("value", data) if isinstance(data, dict) else data
    if not data or not data.get("data"):
        return []
    ids = {m.label: m.name for m in registry.scorer(benchmark).metrics}
    ids.update({"Model": "model", "Source": "source", "Submission id": "id", "Protocol": "protocol"})
    shown = data.get("metadata", {}).get("display_value") or data["data"]
    rows = []
    for values, display in zip(data["data"], shown):
        row = {ids.get(h, h): v for h, v in zip(data["headers"], values)}
        row["rank"] = display[data["headers"].index("Rank")]
        rows.append(row)
    return rows


def status_rows(client) -> list[dict]:
    status, _ = client.predict(api_name="/status")
    return [dict(zip(status["headers"], row)) for row in status["data"]]


def submit_form(benchmark: str, model: str, path: Path) -> tuple:
    from gradio_client import handle_file

    return (benchmark, model, "https://example.org/model", "Load Lab", "open", "medical", "no", "multimodal", 7,
            "No overlap known.", "private@example.org", handle_file(str(path)), None)


def percentile(values: list[float], q: float) -> float:
    import numpy as np

    return float(np.percentile(np.asarray(values, dtype=float), q)) if values else float("nan")

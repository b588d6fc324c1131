"""What the board reads of one result, shared by the board (from Result objects) and the board columns (from
shard rows): the size bucket, why a submission is off the paper's release, the protocol badge, the protocol
facts kept per row."""
from __future__ import annotations

from ..intake.run_settings import describe

MODEL_KEYS = ("name", "link", "organisation", "access", "domain", "reasoning", "input_modality", "params_b")

FACTS = (("items", "int64"), ("comparable_to_paper", "bool"), ("not_comparable_because", "list"),
         ("dataset_fingerprint", "string"), ("n_primary", "int64"), ("run_settings_text", "string"))



def size_bucket(params_b: float | None) -> str:
    if params_b is None:
        return "unknown"
    return "<10B" if params_b < 10 else ("10-70B" if params_b <= 70 else ">70B")



def gap(bench: Benchmark, source: str, protocol: dict, n_items: int) -> str | None:
    if source != "submission" or not bench.release_items:
        return None
    items = protocol.get("items") or n_items
    if items and items < bench.release_items:
        return f"scored on {items:,} items; the paper's release has {bench.release_items:,}"
    return None



def badge(protocol: dict, gap: str | None = None) -> tuple[str, str]:
    if gap:
        return "sample data", f"Not comparable with the paper: {gap} (a sample build)."
    if protocol.get("comparable_to_paper"):
        return "paper protocol", "Scored as the paper did."
    reasons = protocol.get("not_comparable_because") or ["protocol differs"]
    return "differs", "Not comparable with the paper: " + "; ".join(dict.fromkeys(map(str, reasons))) + "."



def facts(protocol: dict, primary: str) -> dict:
    """What the board reads of a result's protocol (the rest stays in the shard): the release size it was scored
    on, the paper-protocol badge and its reasons, the pairing key, the published n of the primary metric, the run
    settings as the table shows them."""
    reasons = protocol.get("not_comparable_because")
    n = (protocol.get("n_by_metric") or {}).get(primary)
    items = protocol.get("items")
    whole = lambda v: int(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and v == v else None  # noqa: E731
    return {"items": whole(items),
            "comparable_to_paper": bool(protocol.get("comparable_to_paper")),
            "not_comparable_because": [str(r) for r in reasons] if isinstance(reasons, list) else None,
            "dataset_fingerprint": protocol.get("dataset_fingerprint"),
            "n_primary": whole(n),
            "run_settings_text": describe(protocol.get("run_settings"))}


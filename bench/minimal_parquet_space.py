"""The floor for bench/results_scale.py: a minimal Gradio app on the same result shards. It reads each
benchmark's shards with pyarrow, keeps the model name and the metrics in one DataFrame per benchmark, sorts by
the primary metric and shows the best 500 rows in a plain `gr.Dataframe` per tab, with one API call per
benchmark that returns them again. No ranks, CIs, filters, formatting or downloads (bench/minimal_space.py is
the same floor on JSON records).

    LEADERBOARD_STORE=... GRADIO_SERVER_PORT=... .venv/bin/python bench/minimal_parquet_space.py
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

sys.path.insert(0, str(ROOT / "bench"))

import pandas as pd  # noqa: E402
import pyarrow.dataset as ds  # noqa: E402

from minimal_space import main  # noqa: E402  (the same app; only the loader differs)


def load(store: Path, name: str, primary: str) -> pd.DataFrame:
    folder = store / "results" / name / "data"
    if not folder.is_dir():
        return pd.DataFrame()
    table = ds.dataset(str(folder), format="parquet").to_table(columns=["model", "metrics"])
    metrics = table.column("metrics").combine_chunks()
    frame = pd.DataFrame({"model": table.column("model").combine_chunks().field("name").to_pylist(),
                          **{f.name: metrics.field(f.name).to_numpy(zero_copy_only=False) for f in metrics.type}})
    return frame.sort_values(primary, ascending=False) if len(frame) else frame


if __name__ == "__main__":
    main(load)

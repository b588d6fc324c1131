"""The floor for bench/results_scale.py: a minimal Gradio app on the same result shards. It reads each
benchmark's shards with pyarrow, keeps the model name and the metrics in one DataFrame per benchmark, sorts by
the primary metric and shows the best 500 rows in a plain `gr.Dataframe` per tab, with one API call per
benchmark that returns them again. No ranks, CIs, filters, formatting or downloads (bench/minimal_space.py is
the same floor on JSON records).

    LEADERBOARD_STORE=... GRADIO_SERVER_PORT=... .venv/bin/python bench/minimal_parquet_space.py
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import gradio as gr  # noqa: E402
import pandas as pd  # noqa: E402
import pyarrow.dataset as ds  # noqa: E402

from leaderboard import registry  # noqa: E402

SHOWN = 500


def load(store: Path, name: str, primary: str) -> pd.DataFrame:
    folder = store / "results" / name / "data"
    if not folder.is_dir():
        return pd.DataFrame()
    table = ds.dataset(str(folder), format="parquet").to_table(columns=["model", "metrics"])
    metrics = table.column("metrics").combine_chunks()
    frame = pd.DataFrame({"model": table.column("model").combine_chunks().field("name").to_pylist(),
                          **{f.name: metrics.field(f.name).to_numpy(zero_copy_only=False) for f in metrics.type}})
    return frame.sort_values(primary, ascending=False) if len(frame) else frame


def top_rows(frame: pd.DataFrame):
    return lambda: frame.head(SHOWN)


def main() -> None:
    store = Path(os.environ["LEADERBOARD_STORE"])
    with gr.Blocks() as app:
        for bench in registry.scorers().values():
            frame = load(store, bench.name, bench.primary_metric)
            with gr.Tab(bench.pretty_name):
                table = gr.Dataframe(value=frame.head(SHOWN), interactive=False)
                gr.Button("Refresh").click(top_rows(frame), None, table, api_name=f"table_{bench.name}")
    app.queue().launch(server_name="127.0.0.1", server_port=int(os.environ["GRADIO_SERVER_PORT"]))


if __name__ == "__main__":
    main()

"""The floor for the Space benches: a minimal Gradio app on the same result JSONs. It reads every record with
`json.load`, keeps the model name and the metrics in one DataFrame per benchmark, sorts by the primary metric
and shows the best 500 rows in a plain `gr.Dataframe` per tab, with one API call per benchmark that returns
them again (what a refresh does). No ranks, CIs, filters, formatting or downloads: what any leaderboard must
at least do.

    LEADERBOARD_STORE=... GRADIO_SERVER_PORT=... .venv/bin/python bench/minimal_space.py
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import gradio as gr  # noqa: E402
import pandas as pd  # noqa: E402

from leaderboard.scoring import registry  # noqa: E402

SHOWN = 500


def load(store: Path, name: str, primary: str) -> pd.DataFrame:
    rows = []
    folder = store / "results" / name
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        with path.open(encoding="utf-8") as handle:
            record = json.load(handle)
        rows.append({"model": record["model"]["name"], **record["metrics"]})
    frame = pd.DataFrame(rows)
    return frame.sort_values(primary, ascending=False) if len(frame) else frame


def top_rows(frame: pd.DataFrame):
    return lambda: frame.head(SHOWN)


def main(load=load) -> None:
    """`load(store, benchmark, primary metric)`: the DataFrame of a benchmark's results (here: from the JSON)."""
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

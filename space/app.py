"""The leaderboard Space. For now: the paper-reported rows per benchmark; submission comes next."""
from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # on a Hugging Face Space the app file runs as a script
    sys.path.insert(0, str(ROOT))

os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")  # no telemetry: offline, and visitors' data stays here

import gradio as gr  # noqa: E402

from leaderboard.benchmarks import BENCHMARKS  # noqa: E402
from leaderboard.store import load_records  # noqa: E402
from leaderboard.tables import ranked_table  # noqa: E402


def build_app() -> gr.Blocks:
    with gr.Blocks(title="Medical multimodal benchmark hub") as app:
        gr.Markdown("# Medical multimodal benchmark hub\nPaper-reported results, scored the same way. "
                    "Uploading predictions opens soon; meanwhile score offline with `python -m leaderboard score`.")
        with gr.Tabs():
            for benchmark in BENCHMARKS.values():
                with gr.Tab(benchmark.pretty_name):
                    table = ranked_table(benchmark, load_records(benchmark.name))
                    gr.Markdown(f"Ranked by `{benchmark.primary_metric}`; values x100. "
                                "Rows from the paper are marked `paper`; flagged cells are counted in `flags`.")
                    gr.Dataframe(value=table, interactive=False, wrap=True)
    return app


def main() -> None:
    host = os.environ.get("GRADIO_SERVER_NAME", "127.0.0.1")
    port = int(os.environ.get("GRADIO_SERVER_PORT", "7860"))
    build_app().launch(server_name=host, server_port=port)


if __name__ == "__main__":
    main()

"""bench/space_views.py at 10,000 results per benchmark (issue 15: ranked table through the Space < 300 ms,
start-up <= 1.1x a minimal gr.Dataframe app on the same JSONs).

    .venv/bin/python bench/space_views_scale.py [--results 10000] [--store DIR] [--runs 3] [--skip-space | --apps-only]
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from space_views import main  # noqa: E402

if __name__ == "__main__":
    raise SystemExit(main(default_results=10000))

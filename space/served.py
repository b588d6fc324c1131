"""Download files written inside Gradio's own cache folder. Gradio copies (and first hashes, with sha256) every
file an event returns unless it already lies in that folder: for the 10,000-row CSV and JSON of a view that
was ~90 ms of every table refresh. Files there are still served only when an event returns them."""
from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path

from leaderboard.publishing.exports import Exports


def served_exports() -> Exports:
    from gradio.utils import get_upload_folder  # the folder Gradio serves from (GRADIO_TEMP_DIR or <tmp>/gradio)

    folder = Path(get_upload_folder())
    folder.mkdir(parents=True, exist_ok=True)
    root = Path(tempfile.mkdtemp(prefix="leaderboard-exports-", dir=folder))
    atexit.register(shutil.rmtree, root, True)
    return Exports(root)

"""CSV/JSON downloads of a view, written once per (board version, filters) and reused.

All files live in one folder per process; when a benchmark's board changes, its older files are removed, and
at most KEEP views per benchmark are kept (least recently used first out), so page loads and filter changes
never pile up temporary folders.
"""
from __future__ import annotations

import atexit
import hashlib
import json
import os
import shutil
import tempfile
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Callable

import pandas as pd

KEEP = 16


class Exports:
    def __init__(self, root: Path | None = None):
        if root is None:
            root = Path(tempfile.mkdtemp(prefix="leaderboard-exports-"))
            atexit.register(shutil.rmtree, root, True)
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._recent: dict[str, OrderedDict] = {}  # benchmark -> key -> (version, paths)

    def files(self, name: str, version: object, view_key: object, table: Callable[[], pd.DataFrame]) -> tuple[str, str]:
        """(csv path, json path) of the view; `table` is called only when the files do not exist yet."""
        from .heap import release_freed_memory
        from .tables import export_csv, export_json

        digest = hashlib.sha256(json.dumps([str(version), str(view_key)]).encode()).hexdigest()[:16]
        with self._lock:
            recent = self._recent.setdefault(name, OrderedDict())
            for key, (seen_version, paths) in list(recent.items()):
                if seen_version != version:  # the board changed: these files show an old board
                    self._remove(recent, key)
            if digest in recent:
                paths = recent[digest][1]
                if all(os.path.exists(path) for path in paths):
                    for path in paths:  # handed out again: fresh for a cache cleaner that ages files (Gradio's)
                        os.utime(path)
                    recent.move_to_end(digest)
                    return paths
                self._remove(recent, digest)  # removed under us: written again below
            folder = self.root / digest
            folder.mkdir(exist_ok=True)
            frame = table()
            csv_path, json_path = folder / f"{name}.csv", folder / f"{name}.json"
            csv_path.write_text(export_csv(frame), encoding="utf-8")
            json_path.write_text(export_json(frame), encoding="utf-8")
            del frame
            release_freed_memory()  # the view's copy and both texts (~70 MB at 20,000 rows) back to the system
            recent[digest] = (version, (str(csv_path), str(json_path)))
            while len(recent) > KEEP:
                self._remove(recent, next(iter(recent)))
            return str(csv_path), str(json_path)

    def _remove(self, recent: OrderedDict, key: str) -> None:
        recent.pop(key)
        shutil.rmtree(self.root / key, ignore_errors=True)

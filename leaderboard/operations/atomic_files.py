"""A file is replaced whole or not at all: written to a temporary file in its folder, synced, then renamed over
the old one, so a reader (another process, a crash) never sees half a file. Used by the store and the Hub
data cache."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path


class StoreError(Exception):
    """A write failed (read-only folder, disk full...); the message is safe to show to users."""


def atomic_write(path: Path, data: bytes) -> None:
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError as exc:
        raise StoreError(f"could not save to the results store ({exc.strerror or type(exc).__name__}); "
                         "nothing was recorded, please try again later") from None

"""The `extra_fields.jsonl` sidecar: one line per row whose raw record had keys the adapter does not
know, `{"config", "id", "extra_fields": {key: value as released}}`, in row order. Written only when
there is such a row; with held-out answers it sits in the private answers folder (an unknown key may
hold an answer)."""
from __future__ import annotations

import base64
import json
import shutil
from pathlib import Path
from typing import Any


def _jsonable(value: Any) -> Any:
    """Values JSON cannot hold (bytes from a Parquet column, an Arrow view): base64, marked as such."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        return {"base64": base64.b64encode(bytes(value)).decode("ascii")}
    if hasattr(value, "view"):  # ArrowBinary
        return _jsonable(value.view())
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return str(value)


class ExtraFieldsWriter:
    """Opens its file on the first row, so a release without unknown keys writes nothing."""

    def __init__(self, path: Path):
        self.path, self._handle = path, None

    def write(self, config: str, row_id: Any, fields: dict) -> None:
        if self._handle is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._handle = self.path.open("w", encoding="utf-8")
        record = {"config": config, "id": row_id, "extra_fields": fields}
        self._handle.write(json.dumps(record, ensure_ascii=False, default=_jsonable) + "\n")

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None

    def abort(self) -> None:
        self.close()
        self.path.unlink(missing_ok=True)


def concatenate(parts: list[Path], target: Path) -> None:
    """The parts' sidecars, in part order, into `target` (nothing when no part wrote one)."""
    present = [p for p in parts if p.is_file()]
    if not present:
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    with target.open("wb") as out:
        for path in present:
            with path.open("rb") as handle:
                shutil.copyfileobj(handle, out)
            path.unlink()

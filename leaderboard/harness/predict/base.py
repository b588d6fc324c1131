"""What a benchmark's inference protocol declares, and the small pieces every protocol shares:
reading a built dataset (input columns only), image parts with the original bytes, and a
conversation that carries the model's own replies forward.

A protocol turns dataset rows into `Task`s. A task is one unit of resumable work (a case, a chain,
a dialogue): it knows the prediction ids it will produce before it runs, and `run(chat)` returns
their rows. Tasks are light (ids only); the row with its images is read when the task runs, so
memory stays bounded whatever the dataset size.
"""
from __future__ import annotations

import base64
import hashlib
import json
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

Chat = Callable[..., str]  # chat(messages, **request_overrides) -> assistant text


class PredictError(Exception):
    """A problem the user must fix (wrong dataset folder, missing column...); printed without a traceback."""


@dataclass
class Task:
    key: str  # what the failure summary names: a case, chain or dialogue id
    ids: list[str]  # prediction ids this task writes, all at once when it succeeds
    run: Callable[[Chat], list[dict]] = field(repr=False)


class Protocol(ABC):
    name: str
    version: str = "1"
    temperature: float | None = 0.0  # None: leave it to the server's default
    max_tokens: int | None = None
    request_defaults: dict = {}  # other request fields the paper fixes (e.g. top_p 1.0)
    description: str = ""

    def add_arguments(self, parser) -> None:
        """Benchmark-specific flags (e.g. --text-only)."""

    @abstractmethod
    def tasks(self, data: "DataSource", options) -> Iterator[Task]:
        ...

    def settings(self, options) -> dict:
        """What the metadata sidecar records about this protocol run (prompt hashes, variants...)."""
        return {}

    def row_fields(self, options) -> dict:
        """Constant fields written on every prediction line (e.g. input_modality)."""
        return {}


# ------------------------------------------------------------------ dataset access
class DataSource:
    """One built dataset (local folder or Hub id) read with `datasets`, restricted to input columns."""

    def __init__(self, data: str, split: str = "test"):
        import datasets

        datasets.disable_progress_bars()
        datasets.logging.set_verbosity_error()
        self.data, self.split = str(data), split
        try:
            self.config_names = datasets.get_dataset_config_names(self.data)
        except Exception as exc:  # a wrong path raises several exception types
            raise PredictError(f"cannot open the dataset {self.data!r} ({type(exc).__name__}: {str(exc)[:160]}); "
                               "pass --data the built folder, e.g. hub/NAME") from None
        self._datasets: dict[str, Any] = {}
        self._open: dict[tuple[str, tuple[str, ...]], Any] = {}

    def has(self, config: str) -> bool:
        return config in self.config_names

    def table(self, config: str, columns: list[str]):
        """An arrow-formatted Dataset holding only `columns` (images stay raw {bytes, path} structs)."""
        key = (config, tuple(columns))
        if key not in self._open:
            ds = self._load(config)
            missing = [c for c in columns if c not in ds.column_names]
            if missing:
                raise PredictError(f"{self.data} ({config}): missing input column(s) {', '.join(missing)}; "
                                   "rebuild it with the current `python -m dataset_builders build`")
            self._open[key] = ds.select_columns(columns).with_format("arrow")
        return self._open[key]

    def _load(self, config: str):
        if config not in self._datasets:
            import datasets

            if not self.has(config):
                raise PredictError(f"{self.data}: no config {config!r} (found: {', '.join(self.config_names)})")
            self._datasets[config] = datasets.load_dataset(self.data, config, split=self.split)
        return self._datasets[config]

    def column(self, config: str, columns: list[str], name: str) -> list:
        return self.table(config, columns)[name].to_pylist()

    def row(self, config: str, columns: list[str], index: int) -> dict:
        return self.table(config, columns)[index].to_pylist()[0]


# ------------------------------------------------------------------ message parts
def image_mime(data: bytes) -> str:
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return "image/png"
    if data[:3] == b"\xff\xd8\xff":
        return "image/jpeg"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    if data[:2] == b"BM":
        return "image/bmp"
    if data[:4] in (b"II*\x00", b"MM\x00*"):
        return "image/tiff"
    return "image/jpeg"


def data_url(data: bytes) -> str:
    return f"data:{image_mime(data)};base64,{base64.b64encode(data).decode('ascii')}"


def image_bytes(value: Any) -> bytes:
    """The original bytes of a raw Image cell ({bytes, path} struct)."""
    data = value.get("bytes") if isinstance(value, dict) else value
    if not data:
        raise ValueError("image cell has no bytes")
    return bytes(data)


def image_part(value: Any, detail: str | None = None) -> dict:
    url: dict[str, str] = {"url": data_url(image_bytes(value))}
    if detail:
        url["detail"] = detail
    return {"type": "image_url", "image_url": url}


def text_part(text: str) -> dict:
    return {"type": "text", "text": text}


def letter_options(options: list[str]) -> str:
    return "\n".join(f"{chr(65 + i)}. {option}" for i, option in enumerate(options))


def prompt_sha(*texts: str) -> str:
    """Short fingerprint of a protocol's fixed prompt texts, recorded in the metadata sidecar."""
    return hashlib.sha256(json.dumps(texts, ensure_ascii=False).encode()).hexdigest()[:12]


class Conversation:
    """A chat whose every reply is appended, so later turns see the model's own earlier answers."""

    def __init__(self, chat: Chat, system: str | None = None):
        self.chat = chat
        self.messages: list[dict] = [{"role": "system", "content": system}] if system else []

    def ask(self, content: str | list[dict], **overrides) -> str:
        self.messages.append({"role": "user", "content": content})
        reply = self.chat([dict(m) for m in self.messages], **overrides)
        self.messages.append({"role": "assistant", "content": reply})
        return reply

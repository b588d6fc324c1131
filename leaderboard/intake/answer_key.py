"""One interface to a benchmark's answers, wherever they live: in the public rows (the default, as
the papers released them) or in a held-out `<name>-answers` folder/repo beside it."""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import yaml

ANSWERS_SUFFIX = "-answers"


class AnswerKeyError(Exception):
    pass


class MissingConfig(AnswerKeyError):
    """The built folder has no such config (e.g. the release had no items of that kind)."""


def _card_yaml(folder: Path) -> dict:
    card = folder / "README.md"
    if not card.is_file():
        raise AnswerKeyError(f"{folder} is not a built dataset folder (no README.md); build it with "
                             "`python -m dataset_builders build NAME --source DIR --out hub/`")
    text = card.read_text(encoding="utf-8")
    return _front_matter(text)


@lru_cache(maxsize=16)
def _front_matter(text: str) -> dict:
    """The card's YAML header, parsed once per text (a key of several configs reads it per config) with
    libyaml when present: the pure-Python parser takes ~0.3 s on a 17 kB card with its feature schema."""
    match = re.match(r"^---\s*\n(.*?)\n---\s*\n", text, re.S)
    if not match:
        return {}
    return yaml.load(match.group(1), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def config_files(folder: Path, config: str, split: str = "test") -> list[Path]:
    """Parquet files of one config/split, found through the card's `configs` like `load_dataset` does."""
    meta = _card_yaml(folder)
    found = [entry.get("config_name") for entry in meta.get("configs", [])]
    for entry in meta.get("configs", []):
        if entry.get("config_name") != config:
            continue
        files: list[Path] = []
        for data in entry.get("data_files", []):
            if data.get("split") == split:
                paths = data["path"] if isinstance(data["path"], list) else [data["path"]]
                for pattern in paths:
                    files.extend(sorted(folder.glob(pattern)))
        if files:
            return files
    title = meta.get("pretty_name") or folder.name
    raise MissingConfig(f"{folder} holds {title} (configs: {', '.join(map(str, found)) or 'none'}), which has no "
                        f"config {config!r} with a {split!r} split; is --data the right dataset?")


def read_columns(folder: Path, config: str, columns: list[str], split: str = "test") -> pa.Table:
    """Only the named columns (images are never read), concatenated over shards."""
    tables = []
    for path in config_files(folder, config, split):
        # ParquetFile, not pq.read_table: the latter goes through pyarrow.dataset, whose import pulls in
        # pandas (~0.5 s of a score's start-up) for a plain read of a few columns.
        shard = pq.ParquetFile(path)
        present = [c for c in columns if c in shard.schema_arrow.names]
        tables.append(shard.read(columns=present))
    return pa.concat_tables(tables) if tables else pa.table({})


@dataclass
class AnswerKey:
    """Rows keyed by id with answer and stratum columns; `fingerprint` pins the exact content."""

    id_column: str
    table: pa.Table
    source: str
    fingerprint: str
    held_out_columns: tuple[str, ...] = ()  # columns read from the held-out `-answers` folder

    @property
    def public_fingerprint(self) -> str:
        """A fingerprint of the ids only: what may be published when the answers are held out."""
        return _fingerprint(self.table, [self.id_column])

    @property
    def ids(self) -> list[str]:
        return self.table.column(self.id_column).to_pylist()

    def __len__(self) -> int:
        return self.table.num_rows


def load_answer_key(data: Path, configs: str | list[str], id_column: str, answer_columns: list[str],
                    extra_columns: list[str], answers: Path | None = None, split: str = "test") -> AnswerKey:
    """The key of one or several configs; several are concatenated (columns a config lacks are null)
    with a `config` column naming each row's config."""
    if isinstance(configs, str):
        configs = [configs]
    parts, present_configs, held = [], [], []
    for config in configs:
        try:
            table, source, held_here = _load_config(Path(data), config, id_column, answer_columns, extra_columns,
                                                    answers, split)
            parts.append((table, source))
            held += [c for c in held_here if c not in held]
            present_configs.append(config)
        except MissingConfig:
            if len(configs) == 1:
                raise
    if not parts:
        raise AnswerKeyError(f"{data} has none of the configs {', '.join(configs)}")
    if len(configs) == 1:
        table, source = parts[0]
    else:  # several declared configs always carry the `config` column, even if one is absent
        tables = [t.append_column("config", pa.array([c] * t.num_rows, pa.string()))
                  for (t, _), c in zip(parts, present_configs)]
        table = pa.concat_tables(tables, promote_options="default")
        source = parts[0][1]
    present = [c for c in answer_columns if c in table.column_names]
    return AnswerKey(id_column, table, source, _fingerprint(table, [id_column, *present]), tuple(held))


def _load_config(data: Path, config: str, id_column: str, answer_columns: list[str], extra_columns: list[str],
                 answers: Path | None, split: str) -> tuple[pa.Table, str, list[str]]:
    public = read_columns(data, config, [id_column, *answer_columns, *extra_columns], split)
    missing = [c for c in [*answer_columns, *extra_columns] if c not in public.column_names]
    needs_key = not any(c in public.column_names for c in answer_columns)
    source, held_columns = str(data), []
    answers = Path(answers) if answers else data.with_name(data.name + ANSWERS_SUFFIX)
    if needs_key and not answers.is_dir():
        raise AnswerKeyError(f"{data} has no answer fields and no answer key was found at {answers}; "
                             "pass --answers PATH to the held-out `-answers` folder")
    if missing and answers.is_dir():
        held = read_columns(answers, config, [id_column, *missing], split)
        if held.num_columns > 1:
            public = _join(public, held, id_column)
            source = f"{data} + {answers}"
            held_columns = [c for c in held.column_names if c != id_column]
    if id_column not in public.column_names or not any(c in public.column_names for c in answer_columns):
        raise AnswerKeyError(f"config {config!r} of {data} lacks the id or answer columns")
    return public, source, held_columns


def _join(left: pa.Table, right: pa.Table, key: str) -> pa.Table:
    index = {v: i for i, v in enumerate(right.column(key).to_pylist())}
    order = []
    for value in left.column(key).to_pylist():
        if value not in index:
            raise AnswerKeyError(f"answer key has no row for id {value!r}")
        order.append(index[value])
    taken = right.take(pa.array(order))
    for name in right.column_names:
        if name != key:
            left = left.append_column(name, taken.column(name))
    return left


def _fingerprint(table: pa.Table, columns: list[str]) -> str:
    """Content hash of ids + answers (their Arrow IPC serialisation, in one contiguous chunk): the
    same answers give the same fingerprint on any machine, at Arrow speed."""
    sink = pa.BufferOutputStream()
    selected = table.select(columns).combine_chunks()
    with pa.ipc.new_stream(sink, selected.schema.remove_metadata()) as writer:
        writer.write_table(selected)
    return "sha256:" + hashlib.sha256(sink.getvalue()).hexdigest()[:16]

"""Builds one benchmark into a Hub-shaped folder, atomically: everything is written into a hidden
temporary folder beside the target and moved into place only when the whole release was read
without problems, so a failed build never leaves a half-written dataset in `--out`."""
from __future__ import annotations

import hashlib
import os
import shutil
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import datasets
import huggingface_hub
import pyarrow
from tqdm.auto import tqdm

from . import __version__
from .adapters.base import Adapter, ConfigSpec
from .card import ConfigOutcome, render, write_card
from .errors import ProblemLog
from .parquet_writer import SHARD_BYTES, ShardedParquetWriter

ANSWERS_SUFFIX = "-answers"


@dataclass
class BuildReport:
    folder: Path
    answers_folder: Path | None
    rows: dict[str, int]
    images: int
    download_bytes: int


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _split_features(spec: ConfigSpec, adapter: Adapter) -> tuple[datasets.Features, datasets.Features]:
    public = datasets.Features({k: v for k, v in spec.features.items() if k not in adapter.answer_columns})
    answers = datasets.Features(
        {adapter.id_column: spec.features[adapter.id_column],
         **{k: v for k, v in spec.features.items() if k in adapter.answer_columns}}
    )
    return public, answers


def _count(counts: dict[str, Counter], strata: dict) -> None:
    for name, value in strata.items():
        bucket = counts.setdefault(name, Counter())
        if isinstance(value, list):
            bucket.update(value)
        else:
            bucket[value] += 1


def build(adapter: Adapter, source: Path, out_root: Path, *, hold_out_answers: bool = False,
          sample: bool = False, gated: bool = True, repo_id: str | None = None,
          shard_bytes: int = SHARD_BYTES, progress: bool = True) -> BuildReport:
    source = Path(source)
    if not source.exists():
        raise SystemExit(f"source not found: {source}")
    out_root = Path(out_root)
    out_root.mkdir(parents=True, exist_ok=True)
    repo_id = repo_id or adapter.name
    tmp = out_root / f".{adapter.name}.building-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    public_dir, answers_dir = tmp / adapter.name, tmp / (adapter.name + ANSWERS_SUFFIX)
    specs = {s.name: s for s in adapter.configs()}
    writers: dict[str, tuple[ShardedParquetWriter, ShardedParquetWriter | None]] = {}
    features: dict[str, tuple[datasets.Features, datasets.Features | None]] = {}
    for spec in specs.values():
        pub, ans = _split_features(spec, adapter) if hold_out_answers else (spec.features, None)
        features[spec.name] = (pub, ans)
        writers[spec.name] = (
            ShardedParquetWriter(public_dir / spec.data_dir, spec.split, pub, shard_bytes=shard_bytes),
            ShardedParquetWriter(answers_dir / spec.data_dir, spec.split, ans, shard_bytes=shard_bytes) if ans else None,
        )
    log = ProblemLog()
    counts: dict[str, dict[str, Counter]] = {name: {} for name in specs}
    image_hashes: list[str] = []
    image_bytes = 0
    try:
        bar = tqdm(desc=f"building {adapter.name}", unit=" rows", disable=not progress, file=sys.stderr)
        for config, row in adapter.read(source, log):
            pub_writer, ans_writer = writers[config]
            pub_feats, ans_feats = features[config]
            pub_writer.write({k: row[k] for k in pub_feats})
            if ans_writer is not None:
                ans_writer.write({k: row[k] for k in ans_feats})
            _count(counts[config], adapter.strata(config, row))
            image_bytes += _image_bytes(row)
            image_hashes.extend(row.get("image_sha256") or [])
            bar.update(1)
        bar.close()
        log.raise_if_any()
        outcomes, answer_outcomes = [], []
        for name, (pub_writer, ans_writer) in writers.items():
            outcomes.append(ConfigOutcome(specs[name], features[name][0], pub_writer.close(), counts[name]))
            if ans_writer is not None:
                answer_outcomes.append(ConfigOutcome(specs[name], features[name][1], ans_writer.close()))
        if sum(o.split.num_examples for o in outcomes) == 0:
            raise SystemExit(f"no rows were read from {source}")
        # A config with no rows would be an empty shard that `datasets` cannot load: leave it out.
        empty = {o.spec.name for o in outcomes if o.split.num_examples == 0}
        for o in [*outcomes, *answer_outcomes]:
            if o.spec.name in empty:
                for path in o.split.files:
                    path.unlink(missing_ok=True)
                    if path.parent.is_dir() and not any(path.parent.iterdir()):
                        path.parent.rmdir()
        outcomes = [o for o in outcomes if o.spec.name not in empty]
        answer_outcomes = [o for o in answer_outcomes if o.spec.name not in empty]
        checksums = [
            {"path": str(p.relative_to(source) if source.is_dir() else p.name), "bytes": p.stat().st_size, "sha256": sha256_file(p)}
            for p in adapter.source_files(source)
        ]
        image_summary = {
            "count": len(image_hashes),
            "bytes": image_bytes,
            "sha256": hashlib.sha256("\n".join(sorted(image_hashes)).encode()).hexdigest(),
        }
        versions = {"dataset_builders": __version__, "datasets": datasets.__version__,
                    "huggingface_hub": huggingface_hub.__version__, "pyarrow": pyarrow.__version__}
        common = dict(gated=gated, sample=sample, checksums=checksums, image_summary=image_summary,
                      tool_versions=versions, held_out=hold_out_answers)
        write_card(public_dir, render(adapter, outcomes, repo_id=repo_id, answers=False, **common))
        if answer_outcomes:
            write_card(answers_dir, render(adapter, answer_outcomes, repo_id=repo_id + ANSWERS_SUFFIX, answers=True, **common))
    except BaseException:
        for pub_writer, ans_writer in writers.values():
            pub_writer.abort()
            if ans_writer is not None:
                ans_writer.abort()
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    final_public = _swap_in(public_dir, out_root / adapter.name)
    final_answers = out_root / (adapter.name + ANSWERS_SUFFIX)
    if answer_outcomes:
        _swap_in(answers_dir, final_answers)
    elif final_answers.exists():  # a stale key from an earlier held-out build would contradict the new rows
        shutil.rmtree(final_answers)
    shutil.rmtree(tmp, ignore_errors=True)
    return BuildReport(
        folder=final_public,
        answers_folder=final_answers if answer_outcomes else None,
        rows={o.spec.name: o.split.num_examples for o in outcomes},
        images=len(image_hashes),
        download_bytes=sum(o.split.download_size for o in outcomes),
    )


def _image_bytes(value) -> int:
    """Total bytes of the image structs ({bytes, path}) anywhere in a row."""
    if isinstance(value, dict):
        if isinstance(value.get("bytes"), (bytes, bytearray)):
            return len(value["bytes"])
        return sum(_image_bytes(v) for v in value.values())
    if isinstance(value, list):
        return sum(_image_bytes(v) for v in value)
    return 0


def _swap_in(staged: Path, final: Path) -> Path:
    """Replace `final` with `staged` so readers see either the old or the new folder, never a mix."""
    old = final.with_name(f".{final.name}.old-{os.getpid()}")
    if final.exists():
        os.replace(final, old)
    os.replace(staged, final)
    shutil.rmtree(old, ignore_errors=True)
    return final

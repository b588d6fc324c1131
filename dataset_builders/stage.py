"""Builds one benchmark into a Hub-shaped folder, atomically: everything is written into a hidden
temporary folder beside the target and moved into place only when the whole release was read
without problems, so a failed build never leaves a half-written dataset in `--out`.

Parallel builds (`num_proc` > 1): an adapter may offer two optional methods,
`partitions(source, count) -> list[part]` (at most `count` picklable work units whose rows, read in
order, are exactly `read()`'s rows) and `read_partition(source, part, log, seen)` (the rows of one
part, claiming ids in `seen`: id -> where). Each part is built in a worker process (forkserver, else
spawn) into its own shard files under the temporary folder, with the same writer as a serial build; the
parent then checks ids across parts, merges problems in part order (a duplicate across parts is
reported at its second place), renames the shards in part order to `{split}-{k:05d}-of-{n:05d}` and
writes one card from the merged counts. Rows and their order are the serial build's; only the shard
boundaries (one or more files per part) and therefore `download_size`/`num_bytes` differ. Adapters
without the methods, or releases that give fewer than two parts, are built serially.
"""
from __future__ import annotations

import hashlib
import multiprocessing
import os
import shutil
import sys
import threading
from collections import Counter
from concurrent.futures import FIRST_EXCEPTION, ProcessPoolExecutor, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import datasets
import huggingface_hub
import pyarrow
from tqdm.auto import tqdm

from . import __version__
from .adapter import EXTRA_FIELDS, Adapter, ConfigSpec
from .card import ConfigOutcome, render, write_card
from .errors import ProblemLog
from .extra_fields import ExtraFieldsWriter, concatenate
from .release_report import SIDECAR, ReleaseReport
from .parquet_writer import SHARD_BYTES, ShardedParquetWriter, SplitFiles, image_bytes, image_columns

ANSWERS_SUFFIX = "-answers"


@dataclass
class BuildReport:
    folder: Path
    answers_folder: Path | None
    rows: dict[str, int]
    images: int
    download_bytes: int
    release: ReleaseReport = field(default_factory=ReleaseReport)


def sha256_file(path: Path, stop: threading.Event | None = None) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            if stop is not None and stop.is_set():
                raise RuntimeError("checksum abandoned: the build stopped")
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
          shard_bytes: int = SHARD_BYTES, progress: bool = True, num_proc: int = 1,
          strict: bool = False) -> BuildReport:
    """`strict`: unknown keys and values outside a field's vocabulary are problems (the build is refused)
    instead of being kept and listed in the card's build report."""
    source = Path(source)
    if not source.exists():
        raise SystemExit(f"source not found: {source}")
    if num_proc < 1:
        raise SystemExit(f"--num-proc must be at least 1, got {num_proc}")
    out_root = Path(out_root)
    out_root.mkdir(parents=True, exist_ok=True)
    repo_id = repo_id or adapter.name
    tmp = out_root / f".{adapter.name}.building-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    public_dir, answers_dir = tmp / adapter.name, tmp / (adapter.name + ANSWERS_SUFFIX)
    specs, features = _plan(adapter, hold_out_answers)
    # Unknown keys may carry anything, answers included: with held-out answers they stay with the key.
    sidecar = (answers_dir if hold_out_answers else public_dir) / SIDECAR
    # The source files' checksums (for the card) are hashed in a thread while the rows are read: hashlib
    # releases the GIL on large buffers, so on a release of big Parquet files this uses another core.
    hasher, stop = ThreadPoolExecutor(max_workers=1), threading.Event()
    hashed = hasher.submit(lambda: [(p, p.stat().st_size, sha256_file(p, stop)) for p in adapter.source_files(source)])
    try:
        bar = tqdm(desc=f"building {adapter.name}", unit=" rows", disable=not progress, file=sys.stderr)
        parts = _partitions(adapter, source, num_proc)
        if parts is None:
            splits, tally = _read_serial(adapter, source, specs, features, public_dir, answers_dir, shard_bytes, bar,
                                         strict, sidecar)
        else:
            splits, tally = _read_parallel(adapter, source, parts, num_proc, hold_out_answers, specs, tmp,
                                           public_dir, answers_dir, shard_bytes, bar, strict, sidecar)
        bar.close()
        counts, image_hashes, image_bytes = tally.counts, tally.image_hashes, tally.image_bytes
        outcomes, answer_outcomes = [], []
        for name, (pub_split, ans_split) in splits.items():
            outcomes.append(ConfigOutcome(specs[name], features[name][0], pub_split, counts[name]))
            if ans_split is not None:
                answer_outcomes.append(ConfigOutcome(specs[name], features[name][1], ans_split))
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
            {"path": str(p.relative_to(source) if source.is_dir() else p.name), "bytes": size, "sha256": digest}
            for p, size, digest in hashed.result()
        ]
        image_summary = {
            "count": len(image_hashes),
            "bytes": image_bytes,
            "sha256": hashlib.sha256("\n".join(sorted(image_hashes)).encode()).hexdigest(),
        }
        versions = {"dataset_builders": __version__, "datasets": datasets.__version__,
                    "huggingface_hub": huggingface_hub.__version__, "pyarrow": pyarrow.__version__}
        common = dict(gated=gated, sample=sample, checksums=checksums, image_summary=image_summary,
                      tool_versions=versions, held_out=hold_out_answers, report=tally.report, strict=strict)
        write_card(public_dir, render(adapter, outcomes, repo_id=repo_id, answers=False, **common))
        if answer_outcomes:
            write_card(answers_dir, render(adapter, answer_outcomes, repo_id=repo_id + ANSWERS_SUFFIX, answers=True, **common))
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    finally:
        stop.set()  # a failed build does not wait for the checksums
        hasher.shutdown(wait=True, cancel_futures=True)
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
        release=tally.report,
    )


Splits = dict[str, tuple[SplitFiles, SplitFiles | None]]  # config -> (public split, answers split or None)


def _plan(adapter: Adapter, hold_out_answers: bool) -> tuple[dict[str, ConfigSpec], dict]:
    specs = {s.name: s for s in adapter.configs()}
    features = {name: _split_features(spec, adapter) if hold_out_answers else (spec.features, None)
                for name, spec in specs.items()}
    return specs, features


@dataclass
class _Tally:
    """What the card needs besides the shards: stratum counts and the image summary."""

    counts: dict[str, dict[str, Counter]]
    image_hashes: list[str] = field(default_factory=list)
    image_bytes: int = 0
    rows: int = 0
    report: ReleaseReport = field(default_factory=ReleaseReport)

    def merge(self, other: _Tally) -> None:
        for config, strata in other.counts.items():
            for name, counter in strata.items():
                self.counts[config].setdefault(name, Counter()).update(counter)
        self.image_hashes.extend(other.image_hashes)
        self.image_bytes += other.image_bytes
        self.rows += other.rows
        self.report.merge(other.report)


class _Sink:
    """Routes canonical rows to one writer per config (plus one for held-out answers) and tallies them."""

    def __init__(self, adapter: Adapter, specs: dict[str, ConfigSpec], features: dict, public_dir: Path,
                 answers_dir: Path, shard_bytes: int, sidecar: Path):
        self.adapter, self.features = adapter, features
        self.extras = ExtraFieldsWriter(sidecar)
        self.writers = {
            name: (ShardedParquetWriter(public_dir / spec.data_dir, spec.split, features[name][0], shard_bytes=shard_bytes),
                   ShardedParquetWriter(answers_dir / spec.data_dir, spec.split, features[name][1], shard_bytes=shard_bytes)
                   if features[name][1] else None)
            for name, spec in specs.items()
        }
        self.tally = _Tally({name: {} for name in specs})
        self.image_columns = {name: image_columns(spec.features) for name, spec in specs.items()}

    def add(self, config: str, row: dict) -> None:
        pub_writer, ans_writer = self.writers[config]
        pub_feats, ans_feats = self.features[config]
        pub_writer.write({k: row[k] for k in pub_feats})
        if ans_writer is not None:
            ans_writer.write({k: row[k] for k in ans_feats})
        _count(self.tally.counts[config], self.adapter.strata(config, row))
        self.tally.image_bytes += image_bytes(row, self.image_columns[config])
        self.tally.image_hashes.extend(row.get("image_sha256") or [])
        self.tally.rows += 1
        if row.get(EXTRA_FIELDS):
            self.extras.write(config, row[self.adapter.id_column], row[EXTRA_FIELDS])
            self.tally.report.extra_records += 1

    def close(self) -> Splits:
        self.extras.close()
        return {name: (pub.close(), ans.close() if ans is not None else None) for name, (pub, ans) in self.writers.items()}

    def abort(self) -> None:
        self.extras.abort()
        for pub, ans in self.writers.values():
            pub.abort()
            if ans is not None:
                ans.abort()


def _read_serial(adapter: Adapter, source: Path, specs: dict, features: dict, public_dir: Path, answers_dir: Path,
                 shard_bytes: int, bar, strict: bool, sidecar: Path) -> tuple[Splits, _Tally]:
    sink = _Sink(adapter, specs, features, public_dir, answers_dir, shard_bytes, sidecar)
    log = ProblemLog(strict=strict)
    try:
        for config, row in adapter.read(source, log):
            sink.add(config, row)
            bar.update(1)
        log.raise_if_any()
        sink.tally.report.merge(log.report)
        return sink.close(), sink.tally
    except BaseException:
        sink.abort()
        raise


def _partitions(adapter: Adapter, source: Path, num_proc: int) -> list | None:
    """The adapter's work units for a parallel build, or None for a serial one."""
    if num_proc < 2 or not (hasattr(adapter, "partitions") and hasattr(adapter, "read_partition")):
        return None
    parts = adapter.partitions(source, num_proc)
    return parts if len(parts) >= 2 else None


@dataclass
class _PartResult:
    problems: list
    truncated: bool
    seen: dict[str, str]
    tally: _Tally
    splits: Splits | None  # None when the part had problems (its shards are already deleted)


_CANCEL = None  # set in each worker: a multiprocessing Event the parent sets when another part failed


class _Cancelled(Exception):
    pass


def _init_worker(cancel) -> None:
    global _CANCEL
    _CANCEL = cancel


def _build_part(adapter: Adapter, source: Path, part: Any, folder: Path, hold_out_answers: bool,
                shard_bytes: int, strict: bool) -> _PartResult:
    """Runs in a worker process: one part's rows into its own shards under `folder`."""
    specs, features = _plan(adapter, hold_out_answers)
    sink = _Sink(adapter, specs, features, folder / "public", folder / "answers", shard_bytes, folder / SIDECAR)
    log, seen = ProblemLog(strict=strict), {}
    try:
        for n, (config, row) in enumerate(adapter.read_partition(source, part, log, seen)):
            if n % 64 == 0 and _CANCEL is not None and _CANCEL.is_set():
                raise _Cancelled()
            sink.add(config, row)
        splits = None if log.problems else sink.close()
        if log.problems:
            sink.abort()
    except BaseException:
        sink.abort()
        raise
    sink.tally.report.merge(log.report)
    return _PartResult(log.problems, log.truncated, seen, sink.tally, splits)


def _worker_context():
    """forkserver where available: workers fork from a clean server that imported this module once (a
    plain fork would inherit the parent's threads: tqdm, pyarrow pools), so only the first parallel
    build of a process pays the imports; spawn elsewhere."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload([__name__])
        return context
    return multiprocessing.get_context("spawn")


def _read_parallel(adapter: Adapter, source: Path, parts: list, num_proc: int, hold_out_answers: bool,
                   specs: dict, tmp: Path, public_dir: Path, answers_dir: Path, shard_bytes: int,
                   bar, strict: bool, sidecar: Path) -> tuple[Splits, _Tally]:
    context = _worker_context()
    cancel = context.Event()
    with ProcessPoolExecutor(max_workers=min(num_proc, len(parts)), mp_context=context,
                             initializer=_init_worker, initargs=(cancel,)) as pool:
        futures = [pool.submit(_build_part, adapter, source, part, tmp / "parts" / f"{k:05d}", hold_out_answers,
                               shard_bytes, strict) for k, part in enumerate(parts)]
        pending = set(futures)
        try:
            while pending:
                done, pending = wait(pending, return_when=FIRST_EXCEPTION)
                for future in done:
                    bar.update(future.result().tally.rows)  # re-raises a worker's exception
        except BaseException:
            cancel.set()  # the other workers stop at their next rows; `with` then waits for them
            for future in pending:
                future.cancel()
            raise
    results = [future.result() for future in futures]
    _merge_problems(results).raise_if_any()
    tally = _Tally({name: {} for name in specs})
    for result in results:
        tally.merge(result.tally)
    splits = {}
    for name, spec in specs.items():
        pub = _gather([r.splits[name][0] for r in results], public_dir / spec.data_dir, spec.split)
        held = [r.splits[name][1] for r in results]
        ans = _gather(held, answers_dir / spec.data_dir, spec.split) if held[0] is not None else None
        splits[name] = (pub, ans)
    concatenate([tmp / "parts" / f"{k:05d}" / SIDECAR for k in range(len(parts))], sidecar)
    return splits, tally


def _merge_problems(results: list[_PartResult]) -> ProblemLog:
    """Every part's problems in part order (a file-level problem repeated by several parts once), plus
    ids claimed by two parts, reported once per place of the second claim, as a serial read would."""
    log, listed, claimed, reported = ProblemLog(), set(), {}, set()
    for result in results:
        for problem in result.problems:
            if problem not in listed:
                listed.add(problem)
                log.add(problem.file, problem.message, line=problem.line, case=problem.case)
        log.truncated |= result.truncated
        for key, where in result.seen.items():  # keys are unique within a part: the part checked them
            if key not in claimed:
                claimed[key] = where
            elif where not in reported:
                reported.add(where)
                log.add(where, f"duplicate id {key!r} (first seen at {claimed[key]})", case=key)
    return log


def _gather(parts: list[SplitFiles], folder: Path, split: str) -> SplitFiles:
    """One split from the parts' shards: renamed in part order to `{split}-{k:05d}-of-{n:05d}`; a part's
    empty placeholder shard is dropped unless every part is empty (the stage then drops the config)."""
    files = [f for p in parts if p.num_examples for f in p.files]
    empty = [f for p in parts if not p.num_examples for f in p.files]
    if not files:
        files, empty = empty[:1], empty[1:]
    for path in empty:
        path.unlink()
    folder.mkdir(parents=True, exist_ok=True)
    out = SplitFiles(num_examples=sum(p.num_examples for p in parts), num_bytes=sum(p.num_bytes for p in parts))
    for k, path in enumerate(files):
        final = folder / f"{split}-{k:05d}-of-{len(files):05d}.parquet"
        os.replace(path, final)
        out.files.append(final)
        out.download_size += final.stat().st_size
    return out


def _swap_in(staged: Path, final: Path) -> Path:
    """Replace `final` with `staged` so readers see either the old or the new folder, never a mix."""
    old = final.with_name(f".{final.name}.old-{os.getpid()}")
    if final.exists():
        os.replace(final, old)
    os.replace(staged, final)
    shutil.rmtree(old, ignore_errors=True)
    return final

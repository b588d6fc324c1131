"""`python -m dataset_builders build|publish|samples`."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .errors import BuildError
from leaderboard.scoring import registry

from .adapter import PreparationError
from .release_report import CARD_ROWS
from .remote_source import RemoteSourceError, fetch_release, is_remote


REPORT_LINES = 20  # findings printed; the card lists up to CARD_ROWS per table


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m dataset_builders", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    build = sub.add_parser("build", help="build one benchmark's raw release into a Hub-shaped folder")
    build.add_argument("name", choices=registry.names())
    build.add_argument("--source", required=True,
                       help="the unpacked raw release (folder or file), or hf://ORG/NAME[@REV] (a Hub dataset repo)")
    build.add_argument("--out", type=Path, default=Path("hub"), help="output root; the dataset lands in OUT/NAME")
    build.add_argument("--hold-out-answers", action="store_true", help="move answer fields to OUT/NAME-answers")
    build.add_argument("--repo-id", help="Hub id used in the card's examples (default: NAME)")
    build.add_argument("--sample", action="store_true", help="label the card as built from a sample release")
    build.add_argument("--no-gate", action="store_true", help="omit the gating form from the card")
    build.add_argument("--quiet", action="store_true", help="no progress bar")
    build.add_argument("--strict", action="store_true",
                       help="refuse the release on any unknown key or any value outside a field's known vocabulary "
                            "(default: keep them, list them in the build report and the card)")
    build.add_argument("--num-proc", type=int, default=1, metavar="N",
                       help="build in N processes when the adapter can split its release (default 1)")
    build.add_argument("--prepare", "--extract-facts", dest="prepare", action="store_true",
                       help="first run the benchmark's one-off preparation step on the release (e.g. extract and "
                            "freeze reference facts with the LLM judge: JUDGE_BASE_URL, JUDGE_MODEL)")
    samples = sub.add_parser("samples", help="build every shipped sample release into OUT")
    samples.add_argument("--out", type=Path, default=Path("hub"))
    samples.add_argument("--quiet", action="store_true")
    samples.add_argument("--num-proc", type=int, default=1, metavar="N")
    pub = sub.add_parser("publish", help="push a built folder to the Hugging Face Hub")
    pub.add_argument("folder", type=Path)
    pub.add_argument("--repo-id", required=True)
    pub.add_argument("--private", action="store_true")
    pub.add_argument("--gated", action="store_true", help="require manual approval of access requests")
    pub.add_argument("--tag", help="tag the upload, e.g. v1.0.0")
    return parser


def _build(name: str, source: Path, out: Path, **kwargs) -> int:
    from .stage import build

    try:
        report = build(registry.adapter(name), source, out, **kwargs)
    except BuildError as exc:
        print(f"error: cannot build {name} from {source}\n{exc}\nNothing was written to {out / name}.", file=sys.stderr)
        return 1
    rows = ", ".join(f"{config}: {n:,} rows" for config, n in report.rows.items())
    print(f"built {report.folder} ({rows}; {report.images:,} images; {report.download_bytes / 1e6:.1f} MB)")
    if report.answers_folder:
        print(f"answer key in {report.answers_folder} (keep it private)")
    if not report.release.empty:
        print(report.release.summary())
        lines = report.release.lines()
        print("\n".join(lines[:REPORT_LINES]))
        if len(lines) > REPORT_LINES:
            print(f"  ... {len(lines) - REPORT_LINES} more (the card lists up to {CARD_ROWS} per table: {report.folder / 'README.md'})")
    return 0


def _prepare(name: str, source: Path) -> int:
    try:
        outcome = registry.adapter(name).prepare(source)
    except PreparationError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(outcome.summary)
    if outcome.failed:
        print(f"error: {outcome.failed}", file=sys.stderr)
        return 1
    return 0


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "build":
        if is_remote(args.source):
            try:
                folder, sha = fetch_release(args.source)
            except RemoteSourceError as exc:
                print(f"error: {exc}", file=sys.stderr)
                return 1
            print(f"release {args.source} at commit {sha}: checksums verified ({folder})")
            args.source = folder
        args.source = Path(args.source)
        if args.prepare:
            status = _prepare(args.name, args.source)
            if status:
                return status
        return _build(args.name, args.source, args.out, hold_out_answers=args.hold_out_answers,
                      repo_id=args.repo_id, sample=args.sample, gated=not args.no_gate, progress=not args.quiet,
                      num_proc=args.num_proc, strict=args.strict)
    if args.command == "samples":
        status = 0
        for name in registry.names():
            source = registry.get(name).sample_dir
            if source.is_dir() and registry.get(name).has("adapter"):
                status |= _build(name, source, args.out, sample=True, progress=not args.quiet, num_proc=args.num_proc)
        return status
    if args.command == "publish":
        from .publish import publish

        revision = publish(args.folder, args.repo_id, private=args.private, gated=args.gated, tag=args.tag)
        print(f"published {args.folder} to https://huggingface.co/datasets/{args.repo_id} ({revision or 'no revision'})")
        return 0
    return 2

"""`python -m leaderboard predict NAME --data hub/NAME --base-url URL --model ID --out preds.jsonl`.

Exit codes: 0 every task done, 1 some tasks failed (re-run the same command to retry them),
2 a usage or dataset problem (nothing was sent).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ...scoring import registry
from ...settings import Settings
from .base import DataSource, PredictError
from .runner import (ChatClient, ChatConfig, RunSummary, Writer, check_resume, done_ids, endpoint_identity, meta_path, now, run_tasks, select_tasks, write_meta)

API_KEY_VAR = "PREDICT_API_KEY"
PROTOCOL_DEFAULT = object()  # --temperature not given: the protocol's value


def _temperature(text: str) -> float | None:
    if text.strip().lower() in ("none", "default", "server"):
        return None
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number or 'none', got {text!r}") from None


def _json_object(text: str) -> dict:
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not valid JSON ({exc})") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError("must be a JSON object")
    return value


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", required=True, help="the built dataset: a folder such as hub/NAME, or a Hub id")
    parser.add_argument("--base-url", required=True, help="OpenAI-compatible endpoint, e.g. http://localhost:8000/v1")
    parser.add_argument("--model", required=True, help="model id as the endpoint names it")
    parser.add_argument("--out", type=Path, required=True, help="prediction file (JSONL); settings go to OUT.meta.json")
    parser.add_argument("--api-key", help=f"API key (default: ${API_KEY_VAR}; prefer the variable)")
    parser.add_argument("--concurrency", type=_positive, default=4, help="tasks (requests) in flight (default 4)")
    parser.add_argument("--limit", type=_positive, help="only the first K tasks (cases, chains, items) in dataset order")
    parser.add_argument("--temperature", type=_temperature, default=PROTOCOL_DEFAULT,
                        help="override the protocol's temperature; 'none' leaves it to the server")
    parser.add_argument("--max-tokens", type=_positive, help="override the protocol's max_tokens for every request")
    parser.add_argument("--extra-body", type=_json_object, default={},
                        help='extra request fields as JSON, e.g. \'{"reasoning_effort": "medium"}\'')
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per request (default 600)")
    parser.add_argument("--max-retries", type=int, default=5, help="retries on 429/5xx/timeouts (default 5)")
    parser.add_argument("--retry-backoff", type=float, default=1.0,
                        help="first backoff in seconds, doubled per retry up to 60 (default 1)")
    parser.add_argument("--keep-think", action="store_true",
                        help="keep a leading <think>...</think> block in responses (stripped by default)")
    parser.add_argument("--overwrite", action="store_true", help="discard OUT and its metadata and start again")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m leaderboard predict",
                                     description="Run a model on a built dataset with the benchmark's protocol.")
    sub = parser.add_subparsers(dest="benchmark", required=True, metavar="NAME")
    for name in sorted(registry.REGISTRY.with_part("protocol")):
        protocol = registry.protocol(name)
        bench = sub.add_parser(name, help=protocol.description)
        _common(bench)
        protocol.add_arguments(bench)
    return parser


def settings_for(args, protocol) -> tuple[dict, ChatConfig]:
    temperature = protocol.temperature if args.temperature is PROTOCOL_DEFAULT else args.temperature
    config = ChatConfig(
        base_url=args.base_url, model=args.model, api_key=args.api_key or Settings.from_env().predict_api_key,
        temperature=temperature, max_tokens=args.max_tokens or protocol.max_tokens,
        extra_body={**protocol.request_defaults, **args.extra_body}, timeout=args.timeout,
        max_retries=args.max_retries, backoff_base=args.retry_backoff, strip_think=not args.keep_think,
    )
    settings = {
        "benchmark": protocol.name,
        "model": args.model,
        "endpoint": endpoint_identity(args.base_url),
        "data": str(args.data),
        "protocol": {"name": protocol.name, "version": protocol.version, "description": protocol.description,
                     **protocol.settings(args)},
        "request": {**config.request_settings(), "max_tokens_overrides_protocol": args.max_tokens is not None},
        "strip_think": config.strip_think,
        "row_fields": protocol.row_fields(args),
    }
    return settings, config


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    args = _parser().parse_args(argv)
    protocol = registry.protocol(args.benchmark)
    try:
        return _run(args, protocol)
    except PredictError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def _run(args, protocol) -> int:
    if not args.base_url.startswith(("http://", "https://")):
        raise PredictError(f"--base-url must start with http:// or https://, e.g. http://localhost:8000/v1 "
                           f"(got {args.base_url!r})")
    out: Path = args.out
    if args.overwrite:
        out.unlink(missing_ok=True)
        meta_path(out).unlink(missing_ok=True)
    settings, config = settings_for(args, protocol)
    existing = done_ids(out)
    previous = check_resume(out, settings, existing)
    data = DataSource(args.data)
    tasks, total, skipped = select_tasks(protocol.tasks(data, args), args.limit, existing)
    summary = RunSummary(tasks_total=total, tasks_skipped=skipped)
    started = now()
    client = ChatClient(config)
    writer = Writer(out, existing, extra=settings["row_fields"])
    try:
        run_tasks(tasks, client, writer, args.concurrency, not args.quiet, summary, desc=f"predict {protocol.name}")
    finally:
        writer.close()
        client.close()
        run = {"started": started, "finished": now(), "limit": args.limit, "concurrency": args.concurrency,
               **summary.as_dict(), "http": client.stats.as_dict()}
        write_meta(out, settings, previous, run)
    print(summary.render(), file=sys.stderr)
    if client.stats.truncated:
        print(f"warning: {client.stats.truncated} replies stopped at max_tokens (finish_reason 'length')",
              file=sys.stderr)
    print(f"predictions: {out}\nrun settings: {meta_path(out)}", file=sys.stderr)
    return 1 if summary.failures else 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The letter reader's cost at X-PCR's scale: N distinct responses the rule leaves unparseable (default 10,000,
about 5.6 % of X-PCR's 177,868 items) read through the real judge client against an OpenAI-compatible server on
127.0.0.1 that answers at once (or after --latency seconds), then read again from the cache (a rescore). Baseline,
measured in the same run: the letter rule on the same responses. The client's own overhead is what is measured;
with a real model the time is about N x latency / concurrency.

    .venv/bin/python bench/letter_reader_load.py [--rows 10000] [--latency 0] [--concurrency 8]
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from fake_openai_server import FakeOpenAIServer  # noqa: E402
from leaderboard.scoring.judge import Judge, JudgeConfig  # noqa: E402
from leaderboard.scoring.letter_reader import read_letters  # noqa: E402
from leaderboard.scoring.letters import parse_letter  # noqa: E402

OPTIONS = ["Diabetic retinopathy", "Retinal vein occlusion", "Hypertensive retinopathy", "Central serous chorioretinopathy"]
STYLES = ["Case {k}: the haemorrhages could fit either of the vascular choices; I cannot settle it from one image.",
          "Image {k} shows scattered dot-blot lesions. Between the first two listed, it is hard to say.",
          "For image {k} the fluid pattern suggests something, but the scan is cut off before",
          "I'm sorry, I can't interpret image {k} without the clinical history."]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--latency", type=float, default=0.0, help="seconds the fake model takes per answer")
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args()
    texts = [STYLES[k % len(STYLES)].format(k=k) for k in range(args.rows)]

    start = time.perf_counter()
    unparsed = sum(parse_letter(t, "ABCD", OPTIONS) is None for t in texts)
    rule_seconds = time.perf_counter() - start

    with tempfile.TemporaryDirectory() as cache, FakeOpenAIServer(lambda body: json.dumps({"letter": None})) as server:
        server.delay = args.latency
        config = JudgeConfig(base_url=server.base_url, model="load-reader", cache_path=Path(cache) / "reader.sqlite",
                             concurrency=args.concurrency, budget_seconds=0, stall_seconds=0)
        rows = list(range(args.rows))
        timings = []
        for _ in ("first", "rescore"):
            start = time.perf_counter()
            outcome = read_letters(Judge(config), rows, texts, [OPTIONS] * args.rows, ["ABCD"] * args.rows)
            timings.append(time.perf_counter() - start)
            assert not outcome.failed, outcome.failure_kinds
        calls = server.calls()
    print(f"{args.rows} distinct responses ({unparsed} unparseable by the rule); latency {args.latency} s, "
          f"concurrency {args.concurrency}")
    print(f"  baseline, the rule on them: {rule_seconds:.2f} s")
    print(f"  the reader, first read:     {timings[0]:.2f} s ({timings[0] / rule_seconds:.1f}x the rule; "
          f"{calls} HTTP requests, {1000 * timings[0] / args.rows:.2f} ms per response)")
    print(f"  the reader, rescore:        {timings[1]:.2f} s ({timings[1] / rule_seconds:.1f}x the rule; from the cache)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

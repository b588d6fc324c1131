"""Load through the real Space: concurrent uploads (each file also uploaded twice at the same moment) are
each recorded exactly once, all ranked, ranks consistent, the store intact. The full-size run (50
submissions, with figures) is bench/space_load.py; this is the same scenario at 10."""
import sys

from conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))

from space_load import run_load  # noqa: E402


def test_ten_concurrent_submissions_and_their_duplicates_are_each_recorded_once_and_ranked(tmp_path):
    figures = run_load(tmp_path, n=10, duplicates=True, poll=0.2, timeout=60, log=lambda *a: None)
    # run_load asserts the details (statuses, store counts, JSON parses, table order and rank labels);
    # here the headline: 20 requests, 10 queued, 10 refused as duplicates, 10 ranked rows
    assert figures["requests"] == 20 and figures["refused_duplicates"] == 10
    assert figures["store"] == {"queue": 10, "results": 10, "uploads": 10, "per_item": 10, "bootstrap": 10}
    assert figures["row_max"] < 60

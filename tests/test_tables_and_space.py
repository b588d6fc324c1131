"""Paper rows load as ranked tables, and the Space starts and serves them."""
import socket
import urllib.request

from leaderboard.benchmarks import get_benchmark
from leaderboard.store import load_records
from leaderboard.tables import ranked_table


def test_paper_rows_rank_by_the_primary_metric():
    bench = get_benchmark("medreamm")
    records = load_records("medreamm")
    paper = [r for r in records if r.source == "paper" and "top5_primary_icd" in r.metrics]
    assert len(paper) == 23  # Table 2; Table 6's rows are another task and lack the ranking metric
    table = ranked_table(bench, records)
    assert len(table) == 23
    assert table.loc[0, "model"] == "Gemini-2.5-Pro" and table.loc[0, "top5_primary_icd"] == 65.9
    assert table["top5_primary_icd"].is_monotonic_decreasing
    assert table.loc[table["model"] == "o3-mini", "flags"].item() == 2
    human = [r for r in records if r.source == "human"]
    assert [r.metrics for r in human] == [{"gi_mcq_accuracy": 10.87, "gi_mcq_dsc": 0.2201}]


def test_space_starts_and_serves_the_page():
    from space.app import build_app

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    app = build_app()
    app.launch(server_name="127.0.0.1", server_port=port, prevent_thread_lock=True)
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=10) as response:
            assert response.status == 200
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/config", timeout=10) as response:
            config = response.read().decode()
        assert "Gemini-2.5-Pro" in config and "MedReaMM" in config
    finally:
        app.close()

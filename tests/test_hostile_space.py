"""The real Space (tests/space_server.py) under hostile uploads (issue 13): while one is validated and
scored, other users' requests still answer within 1 s; Gradio refuses oversized uploads itself; the copy
of a submitted (or refused) upload does not stay on disk."""
from __future__ import annotations

import statistics
import threading
import time
import urllib.error
import urllib.request

import pytest
from gradio_client import Client

from conftest import ROOT
from dataset_builders.stage import build
from hostile.make_corpus import CORPUS, all_cases, case_path, write_freeze_lines
from leaderboard.scoring import registry
from reliability_helpers import status_rows, submit_form
from space_server import SpaceServer



@pytest.fixture(scope="module")
def space(tmp_path_factory):
    root = tmp_path_factory.mktemp("hostile-space")
    for name in ("medreamm", "medcmr"):
        build(registry.adapter(name), ROOT / "benchmarks" / name / "sample", root / "hub", progress=False)
    server = SpaceServer(root / "hub", root / "store", root / "space.log",
                         env={"GRADIO_TEMP_DIR": str(root / "gradio"), "LEADERBOARD_MAX_UPLOAD_MB": "5"})
    server.gradio_dir = root / "gradio"
    server.root = root
    yield server
    server.stop()


def timed_get(url: str) -> float:
    start = time.perf_counter()
    with urllib.request.urlopen(url, timeout=30) as response:
        response.read()
        assert response.status == 200
    return time.perf_counter() - start


def test_other_users_are_answered_while_hostile_uploads_are_handled(space, tmp_path):
    freeze = write_freeze_lines(tmp_path / "freeze.jsonl")  # valid: validated, queued and scored
    bomb = case_path(CORPUS, next(c for c in all_cases() if c.name == "dictionary_bomb.parquet"))
    rows = case_path(CORPUS, next(c for c in all_cases() if c.name == "too_many_rows.parquet"))
    baseline = [max(timed_get(space.url + "gradio_api/info"), timed_get(space.url)) for _ in range(8)]
    done, outcomes = threading.Event(), []

    def attack():
        client = Client(space.url, verbose=False)
        for path, benchmark in ((freeze, "medcmr"), (bomb, "medreamm"), (rows, "medreamm")):
            message, report, *_ = client.predict(*submit_form(benchmark, f"Hostile {path.stem}", path), api_name="/submit")
            outcomes.append(f"{message}\n{report}")
        done.set()

    attacker = threading.Thread(target=attack)
    attacker.start()
    waits, during = [], 0
    while not done.is_set() and len(waits) < 400:
        waits.append(max(timed_get(space.url + "gradio_api/info"), timed_get(space.url)))
        during += not done.is_set()  # answered while the hostile uploads were still being handled
        time.sleep(0.05)
    attacker.join(120)
    client = Client(space.url, verbose=False)
    deadline = time.monotonic() + 60  # the freeze lines are scored in the child process meanwhile
    while time.monotonic() < deadline:
        waits.append(max(timed_get(space.url + "gradio_api/info"), timed_get(space.url)))
        states = {r["model"]: r["state"] for r in status_rows(client)}
        if states.get("Hostile freeze") in ("finished", "failed", "waiting for judge"):
            break
        time.sleep(0.2)
    # No wall-clock bound (a loaded machine slows every answer; the latency target lives in
    # bench/hostile_inputs.py): a frozen Space answers nothing until the attack is over, and every request here
    # has a 30 s timeout. So: other users' pages kept being answered *while* the uploads were handled.
    print(f"\nat rest: page + info max {max(baseline) * 1000:.0f} ms; during the attack: {during} rounds answered "
          f"(of {len(waits)}), median {statistics.median(waits) * 1000:.0f} ms, max {max(waits) * 1000:.0f} ms")
    assert outcomes[0].startswith("**Accepted.**"), outcomes[0]
    assert "decodes to more than the 200.0 MB limit" in outcomes[1] and "1,000,001 rows" in outcomes[2]
    assert outcomes[1].startswith("**Not accepted.**") and outcomes[2].startswith("**Not accepted.**")
    assert states.get("Hostile freeze") in ("finished", "waiting for judge"), states  # open items need a judge
    assert during >= 3, (during, waits)


def test_gradio_refuses_an_oversized_upload_and_keeps_nothing(space, tmp_path):
    big = tmp_path / "big.jsonl"
    big.write_bytes(b'{"id": "S0001", "diagnoses": ["x"]}\n' * 200_000)  # 7.2 MB > the 5 MB limit
    boundary = "----hostile"
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"files\"; filename=\"big.jsonl\"\r\n"
            "Content-Type: application/octet-stream\r\n\r\n").encode() + big.read_bytes() + f"\r\n--{boundary}--\r\n".encode()
    request = urllib.request.Request(space.url + "gradio_api/upload", data=body, method="POST",
                                     headers={"Content-Type": f"multipart/form-data; boundary={boundary}"})
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(request, timeout=60)
    assert caught.value.code == 413
    assert not [p for p in space.gradio_dir.rglob("big.jsonl")]


def test_refused_uploads_leave_no_copy_behind(space, tmp_path):
    client = Client(space.url, verbose=False)
    refused = tmp_path / "refused-upload.jsonl"
    refused.write_text('{"id": "nope", "diagnoses": "x"}\n')
    message = client.predict(*submit_form("medreamm", "Refused", refused), api_name="/submit")[0]
    assert message.startswith("**Not accepted.**")
    assert not list(space.gradio_dir.rglob("refused-upload.jsonl"))
    accepted = tmp_path / "accepted-upload.jsonl"
    accepted.write_text('{"id": "S0002", "diagnoses": ["Uploaded copy check"]}\n')
    message = client.predict(*submit_form("medreamm", "Accepted", accepted), api_name="/submit")[0]
    assert message.startswith("**Accepted.**"), message  # the store holds its own copy; Gradio's goes with
    assert list((space.root / "store" / "private" / "uploads").rglob("predictions.jsonl"))  # delete_cache

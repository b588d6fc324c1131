"""Starts the real Space (`python -m space`) on a free loopback port for end-to-end tests and benches."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class SpaceServer:
    """`python -m space` on a free port; `env` is added to (and wins over) the test defaults. WHO_ICD_BASE_URL and
    SAPBERT_PATH from the caller's environment are dropped unless `env` sets them."""

    default_quota = "50"

    def __init__(self, data: Path, store: Path, log: Path, env: dict[str, str] | None = None, wait: float = 90,
                 root: Path = ROOT):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        full = {**os.environ, "GRADIO_SERVER_PORT": str(self.port), "LEADERBOARD_DATA": str(data),
                "LEADERBOARD_STORE": str(store), "LEADERBOARD_LOCAL_USER": "tester",
                "LEADERBOARD_QUOTA": self.default_quota, "HF_HUB_OFFLINE": "1", "GRADIO_ANALYTICS_ENABLED": "False",
                **(env or {})}
        for name in ("WHO_ICD_BASE_URL", "SAPBERT_PATH"):
            if name not in (env or {}):
                full.pop(name, None)
        self.log_path = log
        self.log = log.open("a")
        self.process = subprocess.Popen([sys.executable, "-m", "space"], cwd=root, env=full, stdout=self.log,
                                        stderr=subprocess.STDOUT)
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the Space exited early; see {log}")
            try:
                with urllib.request.urlopen(self.url, timeout=2) as response:
                    if response.status == 200:
                        return
            except OSError:
                time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"the Space did not answer within {wait} s; see {log}")

    def kill(self) -> None:
        """SIGKILL: no handler, no flush, no cleanup runs (a crash or an OOM kill)."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)
        self.log.close()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        if not self.log.closed:
            self.log.close()


def choose(page, element, option):
    """Pick an option as a keyboard user does: type it, then Enter on the one match. (Clicking the open list
    once timed out: under load the page moved after the list was placed, leaving it outside the viewport.)"""
    box = page.locator(f"#{element} input")
    match = page.get_by_role("option", name=option, exact=True)
    # Under load a dropdown's new choices (sent by the event that redrew the view) can arrive after the list was
    # opened on the old ones, and an open list does not refresh: close it and open it again, up to six times.
    for attempt in range(6):
        box.scroll_into_view_if_needed()
        box.click()
        box.fill(option)
        try:
            match.wait_for(timeout=10_000)
            break
        except Exception:  # playwright's TimeoutError
            if attempt == 5:
                raise
            box.press("Escape")
            page.locator("body").click(position={"x": 1, "y": 1})
    box.press("Enter")
    match.wait_for(state="hidden")  # chosen: the list closed


def space_with_sample_run(root: Path, benchmark: str, model: str, predictions: Path, wait: float = 120) -> SpaceServer:
    """Every sample built into root/hub, the Space started on it, and one run of `predictions` submitted as
    `model` and scored (on sample data: it lands on the benchmark's sample board)."""
    from gradio_client import Client, handle_file

    from dataset_builders.stage import build
    from leaderboard.scoring import registry

    for name in registry.names():
        build(registry.adapter(name), registry.get(name).sample_dir, root / "hub", sample=True, progress=False)
    server = SpaceServer(root / "hub", root / "store", root / "space.log")
    client = Client(server.url, verbose=False)
    message, report, *_ = client.predict(benchmark, model, "https://example.org/m", "Lab", "open", "medical", "no",
                                         "multimodal", 7, "none", "x@example.org", handle_file(str(predictions)),
                                         None, api_name="/submit")
    if not message.startswith("**Accepted.**"):  # the report says which line and field (a CI run saw one refusal)
        server.stop()
        raise AssertionError(f"{message}\n{str(report)[:3000]}")
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        status, _ = client.predict(api_name="/status")
        if {row[2]: row[3] for row in status["data"]}.get(model) == "finished":
            return server
        time.sleep(0.5)
    server.stop()
    raise AssertionError(f"the sample submission {model!r} was not scored within {wait:.0f} s")

"""Starts the real Space (`python -m space`) on a free loopback port for end-to-end tests."""
from __future__ import annotations

import os
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
    def __init__(self, data: Path, store: Path, log: Path):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        env = {**os.environ, "GRADIO_SERVER_PORT": str(self.port), "LEADERBOARD_DATA": str(data),
               "LEADERBOARD_STORE": str(store), "LEADERBOARD_LOCAL_USER": "tester", "LEADERBOARD_QUOTA": "50",
               "HF_HUB_OFFLINE": "1", "GRADIO_ANALYTICS_ENABLED": "False"}
        env.pop("WHO_ICD_BASE_URL", None)
        env.pop("SAPBERT_PATH", None)
        self.log = log.open("w")
        self.process = subprocess.Popen([sys.executable, "-m", "space"], cwd=ROOT, env=env, stdout=self.log,
                                        stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the Space exited early; see {log}")
            try:
                with urllib.request.urlopen(self.url, timeout=2) as response:
                    if response.status == 200:
                        return
            except OSError:
                time.sleep(0.5)
        raise RuntimeError(f"the Space did not answer within 90 s; see {log}")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.log.close()

"""The Space as the Hub runs it, for tests: assembled with `python -m space deploy --dry-run`, started as
`python app.py` from that folder with the environment a Space gets (SYSTEM=spaces, SPACE_ID, OAuth
variables pointing at a fake OpenID provider, HF_ENDPOINT at a fake Hub), plus "Sign in with Hugging Face"
done over HTTP the way a browser does it."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.request
from http.cookies import SimpleCookie
from pathlib import Path
from urllib.parse import urljoin

import httpx

from conftest import ROOT
from space_server import free_port

SPACE_ID = "lab/leaderboard"


def assemble(out: Path, *args: str) -> Path:
    result = subprocess.run([sys.executable, "-m", "space", "deploy", "--space-id", SPACE_ID, "--dry-run",
                             "--out", str(out), *args], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return out


def hub_env(hub_url: str, token: str, home: Path) -> dict[str, str]:
    """What a process talking to the (fake) Hub gets: endpoint, its own token, its own cache."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "LEADERBOARD_", "GRADIO_", "OAUTH_",
                                                                     "SPACE_", "JUDGE_", "WHO_ICD", "SAPBERT"))}
    env.update({"HF_ENDPOINT": hub_url, "HF_TOKEN": token, "HF_HOME": str(home), "HF_HUB_DISABLE_TELEMETRY": "1",
                "HF_HUB_DISABLE_PROGRESS_BARS": "1", "GRADIO_ANALYTICS_ENABLED": "False"})
    return env


class HubSpace:
    def __init__(self, folder: Path, hub_url: str, openid, token: str, variables: dict[str, str], home: Path,
                 log: Path, wait: float = 150):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        self.openid = openid
        env = hub_env(hub_url, token, home)
        env.update({"SYSTEM": "spaces", "SPACE_ID": SPACE_ID, "SPACE_AUTHOR_NAME": SPACE_ID.split("/")[0],
                    "SPACE_REPO_NAME": SPACE_ID.split("/")[1], "OAUTH_CLIENT_ID": openid.client_id,
                    "OAUTH_CLIENT_SECRET": openid.client_secret, "OAUTH_SCOPES": "openid profile",
                    "OPENID_PROVIDER_URL": openid.url, "GRADIO_SERVER_NAME": "127.0.0.1",
                    "GRADIO_SERVER_PORT": str(self.port), **variables})
        self.log = log.open("a")
        self.process = subprocess.Popen([sys.executable, "app.py"], cwd=folder, env=env, stdout=self.log,
                                        stderr=subprocess.STDOUT)
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the Space exited early:\n{log.read_text()[-3000:]}")
            try:
                with urllib.request.urlopen(self.url, timeout=2) as response:
                    if response.status == 200:
                        return
            except OSError:
                time.sleep(0.3)
        self.stop()
        raise RuntimeError(f"the Space did not answer within {wait} s:\n{log.read_text()[-3000:]}")

    def sign_in(self, user: str) -> str:
        """The browser's round trip: /login/huggingface -> provider's authorize -> /login/callback. Returns
        the `Cookie` header of the signed-in session (Gradio's session cookie is Secure; a browser sends it
        to 127.0.0.1, httpx would not, so it is carried by hand)."""
        jar: dict[str, str] = {}
        url = urljoin(self.url, f"/login/huggingface?_target_url=/")
        with httpx.Client(timeout=30) as client:
            for _ in range(6):
                own = url.startswith(self.url)
                headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in jar.items())} if own and jar else {}
                if url.startswith(self.openid.url):
                    url += f"&login_hint={user}"
                response = client.get(url, headers=headers)
                if own:
                    for raw in response.headers.get_list("set-cookie"):
                        cookie = SimpleCookie(raw)
                        jar.update({k: m.value for k, m in cookie.items()})
                if response.status_code not in (302, 303, 307):
                    break
                url = urljoin(url, response.headers["location"])
                if url.rstrip("/") == self.url.rstrip("/"):
                    break
        assert "session" in jar, "no session cookie after sign-in"
        return "; ".join(f"{k}={v}" for k, v in jar.items())

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        if not self.log.closed:
            self.log.close()

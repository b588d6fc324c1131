"""`python -m space deploy` against a fake Hub on 127.0.0.1 (real huggingface_hub HTTP calls)."""
import os
import subprocess
import sys

import pytest
import yaml

from conftest import ROOT
from fake_hub_server import FakeHub

SPACE = "lab/leaderboard"


def deploy(hub, *args, env=None):
    full = {**os.environ, "HF_ENDPOINT": hub.url, "HF_TOKEN": "deployer-token", "HF_HUB_DISABLE_TELEMETRY": "1",
            "LEADERBOARD_SPACE_TOKEN": "space-bot-token", **(env or {})}
    full.pop("HF_HUB_OFFLINE", None)
    return subprocess.run([sys.executable, "-m", "space", "deploy", "--space-id", SPACE, *args], cwd=ROOT, env=full,
                          capture_output=True, text=True, timeout=180)


@pytest.fixture
def hub():
    with FakeHub(tokens={"deployer-token": "maintainer"}, orgs={"lab": {"maintainer"}}) as hub:
        yield hub


def front_matter(text: str) -> dict:
    return yaml.safe_load(text.split("---\n")[1])


def test_deploy_creates_the_space_with_card_files_variables_and_secrets(hub):
    result = deploy(hub, "--private", "--hardware", "cpu-upgrade", "--datasets", "lab", "--results-repo",
                    "lab/results", "--private-repo", "lab/private", "--quota", "3",
                    env={"JUDGE_API_KEY": "judge-secret"})
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().endswith(f"deployed to {hub.url}/spaces/{SPACE}")
    space = hub.repo("space", SPACE)
    assert space.private and space.sdk == "gradio" and space.hardware == "cpu-upgrade"
    files = space.head.files
    meta = front_matter(files["README.md"].decode())
    import gradio

    assert meta["sdk"] == "gradio" and meta["sdk_version"] == gradio.__version__ and meta["app_file"] == "app.py"
    assert meta["hf_oauth"] is True
    assert meta["datasets"] == ["lab/medreamm", "lab/clinmm", "lab/medrealmm", "lab/medcmr", "lab/xpcr"]
    assert b"from space.app import main" in files["app.py"]
    requirements = files["requirements.txt"].decode().splitlines()
    assert "gradio[oauth]==6.31.0" in requirements and "authlib==1.9.10" in requirements
    assert not any(line.startswith(("pytest", "playwright", "torch")) for line in requirements)
    assert "leaderboard/operations/service.py" in files and "space/app.py" in files and "benchmarks/xpcr/scorer.py" in files
    assert "submissions/medreamm/paper/" in "".join(files)  # paper rows travel with the Space
    assert not any("/sample/" in path or "__pycache__" in path for path in files)  # no sample releases, no bytecode
    assert {k: v["value"] for k, v in space.variables.items()} == {
        "LEADERBOARD_WORKER": "external", "GRADIO_SERVER_NAME": "0.0.0.0", "LEADERBOARD_DATASETS": "lab",
        "LEADERBOARD_HUB_RESULTS_REPO": "lab/results", "LEADERBOARD_HUB_PRIVATE_REPO": "lab/private",
        "LEADERBOARD_QUOTA": "3"}
    # the judge key stays off a Space that does not score; the Space's own token is a secret, never a file
    assert {k: v["value"] for k, v in space.secrets.items()} == {"HF_TOKEN": "space-bot-token"}
    assert not any(b"space-bot-token" in data for data in files.values())


def test_redeploy_removes_stale_files_and_keeps_one_space(hub):
    assert deploy(hub, "--worker", "internal").returncode == 0
    space = hub.repo("space", SPACE)
    hub.commit(space, {**space.head.files, "leaderboard/removed_module.py": b"x = 1\n"}, "plant", "maintainer")
    result = deploy(hub, "--worker", "internal", env={"JUDGE_API_KEY": "judge-secret", "JUDGE_MODEL": "m"})
    assert result.returncode == 0, result.stderr
    files = hub.repo("space", SPACE).head.files
    assert "leaderboard/removed_module.py" not in files and "space/app.py" in files
    assert hub.repo("space", SPACE).secrets["JUDGE_API_KEY"]["value"] == "judge-secret"  # internal: the Space scores
    assert hub.repo("space", SPACE).variables["JUDGE_MODEL"]["value"] == "m"


def test_dry_run_writes_the_folder_and_sends_nothing(hub, tmp_path):
    result = deploy(hub, "--dry-run", "--out", str(tmp_path / "space"), "--datasets", "lab/medreamm,lab/xpcr",
                    "--worker", "internal")
    assert result.returncode == 0, result.stderr
    assert front_matter((tmp_path / "space" / "README.md").read_text())["datasets"] == ["lab/medreamm", "lab/xpcr"]
    assert (tmp_path / "space" / "space" / "app.py").is_file()
    assert hub.requests == [] and hub.repos == {}


def test_bad_arguments_get_a_message_not_a_traceback(hub):
    result = deploy(hub, "--datasets", "lab/notabenchmark", "--dry-run", "--worker", "internal")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "LEADERBOARD_DATASETS entry 'lab/notabenchmark'" in result.stderr
    result = deploy(hub, "--dry-run")
    assert result.returncode == 2 and "--worker external needs --results-repo and --private-repo" in result.stderr

"""`python -m space` takes no flags: `--help` prints how it is configured and a stray argument is refused,
neither starting a server (before, both started the Space on port 7860)."""
import subprocess
import sys

from conftest import ROOT


def run(*args):
    return subprocess.run([sys.executable, "-m", "space", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=60, env={"PATH": "/usr/bin:/bin", "GRADIO_SERVER_PORT": "9"})


def test_help_prints_the_configuration_and_starts_nothing():
    done = run("--help")
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout.startswith("usage: python -m space ") and "LEADERBOARD_DATA" in done.stdout
    assert "Running on" not in done.stdout


def test_a_stray_argument_is_refused_with_the_usage():
    done = run("--port", "8000")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("usage: python -m space ") and "GRADIO_SERVER_PORT" in done.stderr

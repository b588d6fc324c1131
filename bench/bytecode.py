"""Write the project's bytecode before a whole-process timing, as any installed copy (a Space, a pip
install) has it. Where PYTHONDONTWRITEBYTECODE is set, each child would otherwise compile ~100 project
modules from source (~0.2 s) while the floor's libraries come compiled by pip: an unfair start-up."""
from __future__ import annotations

import compileall
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("leaderboard", "benchmarks", "dataset_builders", "space")


def compile_project() -> None:
    for package in PACKAGES:
        compileall.compile_dir(ROOT / package, quiet=1)

"""The layout's promises, checked statically: frameworks never import benchmark code, the package import
graph has no cycle, benchmark folders do not import each other, no framework module names a benchmark,
and nothing in the product reads outside the repository."""
from __future__ import annotations

import ast
import re
import subprocess
from pathlib import Path

from conftest import ROOT

from leaderboard.scoring import registry

FRAMEWORKS = ("leaderboard", "dataset_builders", "space")
PACKAGES = (*FRAMEWORKS, "benchmarks")


def _imports(path: Path) -> set[str]:
    """Absolute module names imported anywhere in the file (relative imports resolved)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                found.add(".".join([*base, node.module] if node.module else base))
            else:
                found.add(node.module)
    return found


def _package_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {p: set() for p in PACKAGES}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            for module in _imports(path):
                top = module.split(".")[0]
                if top in PACKAGES and top != package:
                    graph[package].add(top)
    return graph


def test_the_package_import_graph_has_no_cycle():
    graph = _package_graph()
    # benchmarks plug into the frameworks; the builder framework finds them through leaderboard.scoring.registry
    assert graph == {"leaderboard": set(), "dataset_builders": {"leaderboard"}, "space": {"leaderboard"},
                     "benchmarks": {"leaderboard", "dataset_builders"}}, graph


def test_benchmark_folders_do_not_import_each_other():
    for name in registry.names():
        for path in (ROOT / "benchmarks" / name).rglob("*.py"):
            others = {m.split(".")[1] for m in _imports(path) if m.startswith("benchmarks.") and m.count(".") >= 1}
            assert others <= {name}, f"{path.relative_to(ROOT)} imports {sorted(others - {name})}"


def test_no_framework_module_names_a_benchmark():
    pattern = re.compile("|".join(re.escape(n) for n in registry.names()) + r"|Med-?CMR|X-?PCR|ClinMM|MedRea",
                         re.IGNORECASE)
    offenders = []
    for package in FRAMEWORKS:
        for path in (ROOT / package).rglob("*.py"):
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if pattern.search(line):
                    offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not offenders, "\n".join(offenders)


def test_every_benchmark_folder_has_the_parts_the_registry_expects():
    for name in registry.names():
        folder = registry.get(name)
        assert folder.scorer().name == name and folder.adapter().name == name
        assert (folder.path / "README.md").is_file(), f"{name} has no README.md"
        assert folder.sample_dir.is_dir(), f"{name} has no sample release"


def test_nothing_reads_outside_the_repository():
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    bad = re.compile(r"\.\./shared|/work/|/home/\w|\"shared\"")
    offenders = [f for f in tracked if not f.endswith((".png", ".jpg", ".parquet", ".csv"))
                 and (ROOT / f).is_file() and bad.search((ROOT / f).read_text(encoding="utf-8", errors="ignore"))
                 and f != "tests/test_layout.py"]
    assert not offenders, offenders

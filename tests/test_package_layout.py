"""The scoring library's layout by job, pinned: which sub-package may import which (lazy imports included),
no import loop between files anywhere in the product, a short top level, no oversized module, and one of
each thing the guarantees rest on (one judge key, one injection filter, one upload validation)."""
from __future__ import annotations

import ast
from pathlib import Path

from conftest import ROOT

PRODUCT = ("leaderboard", "benchmarks", "space", "dataset_builders")
SHARED = {"leaderboard.settings", "leaderboard.fast_json"}  # used by every job
# sub-package -> the sub-packages its files may import (each __init__ says the same in words)
ALLOWED = {
    "remote": set(),
    "intake": set(),
    "privacy": set(),
    "scoring": {"intake", "privacy", "remote"},
    "publishing": {"scoring", "intake", "privacy", "remote"},
    "operations": {"publishing", "scoring", "intake", "privacy", "remote"},
    "harness": {"scoring", "intake", "remote"},
}
TOP_LEVEL_LIMIT = 12
LINE_LIMIT = 600


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _product_files() -> dict[str, Path]:
    return {_module_name(p): p for package in PRODUCT for p in (ROOT / package).rglob("*.py")
            if "__pycache__" not in p.parts}


MODULES = _product_files()


def _resolve(name: str) -> str | None:
    """The product module a dotted name lands in (the longest known prefix), or None for a third party."""
    parts = name.split(".")
    while parts:
        if ".".join(parts) in MODULES:
            return ".".join(parts)
        parts.pop()
    return None


def imports_of(module: str) -> set[str]:
    """Product modules the file imports anywhere (function-level imports too), relative imports resolved."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(filter(None, (_resolve(a.name) for a in node.names)))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, base] if base else up)
            for alias in node.names:  # `from pkg import module` imports the module, not only the package
                target = _resolve(f"{base}.{alias.name}") if base else None
                found.add(target if target and target != base else _resolve(base))
    found.discard(None)
    found.discard(module)
    return found


GRAPH = {m: imports_of(m) for m in MODULES}


def _job(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if parts[0] == "leaderboard" and len(parts) > 2 and parts[1] in ALLOWED else None


def test_sub_packages_import_only_what_their_job_allows():
    wrong = []
    for module, targets in GRAPH.items():
        job = _job(module)
        if job is None:
            continue
        for target in targets:
            other = _job(target)
            if target.startswith("leaderboard") and other is None and target not in SHARED:
                wrong.append(f"{module} -> {target} (the command line, not a library module)")
            elif other is not None and other != job and other not in ALLOWED[job]:
                wrong.append(f"{module} -> {target} ({job} may not import {other})")
            elif target.startswith("benchmarks"):
                wrong.append(f"{module} -> {target} (frameworks find benchmarks through the registry)")
    assert not wrong, "\n".join(sorted(wrong))


def test_the_shared_modules_import_only_each_other():
    for module in SHARED:
        assert GRAPH[module] <= SHARED, f"{module} imports {sorted(GRAPH[module] - SHARED)}"


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one file (Tarjan, iterative)."""
    index, low, on_stack, stack, found, counter = {}, {}, set(), [], [], [0]
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter[0]
                    counter[0] += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def _without_package_reexports(graph):
    """A package's __init__ importing its own members is how a package exposes them; a member importing its
    package's __init__ for those names would then loop, so only the __init__ -> member arrow is kept."""
    return {m: {t for t in targets if not (t.startswith(m + ".") and MODULES[m].name == "__init__.py")}
            for m, targets in graph.items()}


def test_no_import_loop_between_files_lazy_imports_included():
    cycles = _cycles(_without_package_reexports(GRAPH))
    assert not cycles, "\n".join(" <-> ".join(c) for c in cycles)


def test_the_loop_finder_finds_a_lazy_loop():
    # the checker itself: a loop closed by a function-level import is still a loop
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_the_top_level_is_short_and_every_sub_package_says_its_job():
    top = [p for p in (ROOT / "leaderboard").iterdir()
           if (p.suffix == ".py" or (p.is_dir() and (p / "__init__.py").is_file()))]
    assert len(top) <= TOP_LEVEL_LIMIT, sorted(p.name for p in top)
    assert {p.name for p in top if p.is_dir()} == set(ALLOWED)
    for job in ALLOWED:
        doc = ast.get_docstring(ast.parse((ROOT / "leaderboard" / job / "__init__.py").read_text(encoding="utf-8")))
        assert doc and doc.lower().startswith(job) and "May import:" in doc, job


def test_no_module_is_over_the_line_limit():
    long = []
    for module, path in MODULES.items():
        if "sample" in path.relative_to(ROOT).parts:  # a benchmark's sample generator writes data, line by line
            continue
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > LINE_LIMIT:
            long.append(f"{path.relative_to(ROOT)}: {lines} lines")
    assert not long, "\n".join(long)


def _defined(name: str) -> list[str]:
    """Modules that define a function `name` at module level."""
    return sorted(m for m, path in MODULES.items()
                  for node in ast.parse(path.read_text(encoding="utf-8")).body
                  if isinstance(node, ast.FunctionDef) and node.name == name)


def test_one_judge_key_and_one_injection_filter():
    assert _defined("judge_key") == ["leaderboard.scoring.judge.cache"]
    # every judge-key constant lives beside the function; nobody else spells the key version
    spelled = sorted(m for m, p in MODULES.items() if "KEY_VERSION" in p.read_text(encoding="utf-8"))
    assert spelled == ["leaderboard.scoring.judge.cache"], spelled
    assert _defined("injection_kinds") == ["leaderboard.scoring.judge.safety"]
    users = sorted(m for m, targets in GRAPH.items() if "leaderboard.scoring.judge.injection_patterns" in targets)
    assert users == ["leaderboard.scoring.judge.safety"], users  # the patterns are read only through the filter

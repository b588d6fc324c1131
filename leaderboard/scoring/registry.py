"""The one registry of benchmarks: every sub-folder of the `benchmarks` package is a benchmark.

A folder `benchmarks/<name>/` holds everything about one benchmark (see its README and docs/layout.md's
"Adding a benchmark"). The registry knows only the folder's shape:

    __init__.py     a docstring and `POSITION` (display order; the papers' order for the five we ship)
    scorer.py       one `leaderboard.scoring.benchmark.Benchmark` subclass        (required)
    adapter.py      one `dataset_builders.adapter.Adapter` subclass       (required to build)
    protocol.py     one `leaderboard.harness.predict.base.Protocol` subclass      (optional: `predict`)
    prompts/        versioned judge prompts                               (optional)
    sample/         a small raw release in the authors' layout            (optional: `samples`)

Parts are imported only when asked for (a score never imports the builder, a build never imports a
judge), and by name through importlib: the frameworks never import a benchmark module statically,
the way `datasets` loads its packaged modules and `evaluate` its metric folders.
"""
from __future__ import annotations

import importlib
import importlib.util
import inspect
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PACKAGE = "benchmarks"
# part -> the base class its module must subclass, by name: the registry never imports a framework's
# classes (the builder framework imports this module, so importing it back would make a cycle)
PART_BASES = {"scorer": "leaderboard.scoring.benchmark.Benchmark", "adapter": "dataset_builders.adapter.Adapter",
              "protocol": "leaderboard.harness.predict.base.Protocol"}
DEFAULT_POSITION = 1000  # folders without a POSITION follow the shipped ones, by name


class UnknownBenchmark(KeyError):
    """A name that is no folder under `benchmarks/`."""

    def __init__(self, name: str, available: list[str]):
        super().__init__(name)
        self.name, self.available = name, available

    def __str__(self) -> str:
        return f"unknown benchmark {self.name!r}; available: {', '.join(self.available)}"


class BenchmarkPartMissing(LookupError):
    """A benchmark folder lacks the module (or its class) that an operation needs."""


@dataclass(eq=False)
class BenchmarkFolder:
    name: str
    path: Path
    position: int
    _parts: dict = field(default_factory=dict, repr=False)

    @property
    def module(self) -> str:
        return f"{PACKAGE}.{self.name}"

    @property
    def sample_dir(self) -> Path:
        return self.path / "sample"

    def has(self, part: str) -> bool:
        return (self.path / f"{part}.py").is_file()

    def scorer(self):
        """The benchmark's `Benchmark` instance (one per process)."""
        return self._instance("scorer")

    def adapter(self):
        """A fresh `Adapter` (builders keep per-build state on it)."""
        return self._class("adapter")()

    def protocol(self):
        """The `Protocol` instance for `predict`, or None when the folder has no protocol.py."""
        return self._instance("protocol") if self.has("protocol") else None

    def _instance(self, part: str) -> Any:
        if part not in self._parts:
            self._parts[part] = self._class(part)()
        return self._parts[part]

    def _class(self, part: str) -> type:
        if not self.has(part):
            raise BenchmarkPartMissing(f"benchmark {self.name!r} has no {part}.py in {self.path}")
        module = importlib.import_module(f"{self.module}.{part}")
        base = PART_BASES[part]
        found = [cls for _, cls in inspect.getmembers(module, inspect.isclass)
                 if cls.__module__ == module.__name__ and not inspect.isabstract(cls) and _derives_from(cls, base)]
        if len(found) != 1:
            raise BenchmarkPartMissing(f"{self.module}.{part} must define exactly one {base} subclass, "
                                       f"found {len(found)}")
        cls = found[0]
        if getattr(cls, "name", self.name) != self.name:
            raise BenchmarkPartMissing(f"{cls.__module__}.{cls.__name__}.name is {cls.name!r}; the folder is "
                                       f"{self.name!r}")
        cls.name = self.name
        return cls


class Registry:
    """name -> BenchmarkFolder, in display order. Built once per process (`REGISTRY`)."""

    def __init__(self, root: Path | None = None):
        self._root = root
        self._folders: dict[str, BenchmarkFolder] | None = None

    @property
    def root(self) -> Path:
        if self._root is None:
            self._root = _package_root()
        return self._root

    @property
    def folders(self) -> dict[str, BenchmarkFolder]:
        if self._folders is None:
            self._folders = self._scan()
        return self._folders

    def names(self) -> list[str]:
        return list(self.folders)

    def get(self, name: str) -> BenchmarkFolder:
        try:
            return self.folders[name]
        except KeyError:
            raise UnknownBenchmark(name, sorted(self.folders)) from None

    def scorer(self, name: str):
        return self.get(name).scorer()

    def scorers(self) -> dict:
        """Every benchmark's scorer, in display order (imports every scorer module)."""
        return {name: folder.scorer() for name, folder in self.folders.items()}

    def with_part(self, part: str) -> list[str]:
        return [name for name, folder in self.folders.items() if folder.has(part)]

    def _scan(self) -> dict[str, BenchmarkFolder]:
        found = []
        for path in sorted(p for p in self.root.iterdir() if (p / "__init__.py").is_file() and p.name.isidentifier()
                           and not p.name.startswith("_")):
            module = importlib.import_module(f"{PACKAGE}.{path.name}")
            found.append(BenchmarkFolder(path.name, path, int(getattr(module, "POSITION", DEFAULT_POSITION))))
        return {f.name: f for f in sorted(found, key=lambda f: (f.position, f.name))}


def _derives_from(cls: type, qualified: str) -> bool:
    return any(f"{b.__module__}.{b.__qualname__}" == qualified for b in cls.__mro__[1:])


def _package_root() -> Path:
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError(f"the {PACKAGE!r} package is not importable; run from the project root")
    return Path(list(spec.submodule_search_locations)[0])


REGISTRY = Registry()


def get(name: str) -> BenchmarkFolder:
    return REGISTRY.get(name)


def scorer(name: str):
    return REGISTRY.scorer(name)


def adapter(name: str):
    return REGISTRY.get(name).adapter()


def protocol(name: str):
    return REGISTRY.get(name).protocol()


def names() -> list[str]:
    return REGISTRY.names()


def scorers() -> dict:
    return REGISTRY.scorers()

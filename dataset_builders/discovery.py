"""Plugin discovery shared by the registries: every module of a package that defines a concrete subclass
of `base` with a `name` registers it, so adding a benchmark means adding one module."""
from __future__ import annotations

import importlib
import inspect
import pkgutil


def discover(package: str, path, base: type, skip: tuple[str, ...] = ("base",)) -> dict[str, type]:
    """name -> class, over the modules of `package` (its `__path__`) except those in `skip`, by module name."""
    found: dict[str, type] = {}
    for module_info in sorted(pkgutil.iter_modules(path), key=lambda m: m.name):
        if module_info.name in skip:
            continue
        module = importlib.import_module(f"{package}.{module_info.name}")
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if issubclass(cls, base) and cls is not base and cls.__module__ == module.__name__ \
                    and getattr(cls, "name", None) and not inspect.isabstract(cls):
                found[cls.name] = cls
    return found

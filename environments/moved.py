"""Old module paths that still import, for one release, with a warning naming the new one.

Release 0.2 moved modules into one package per protocol (`environments/`) and one per kind
of work (`simulators/`). A user's own config or plug-in may still name an old dotted path
(`_target_: simulators.judge.PepperJudge`, a logged run's `config.yaml` that `crsim replay`
or `crsim report` re-reads). `alias_moved_modules` makes such an import return the module
at its new home and say, once, where that is; it never shadows a module that exists.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import warnings
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import Any

REMOVED_IN = "crsim 0.3"


class MovedModuleWarning(FutureWarning):
    """An old module path was imported; shown by default, unlike a DeprecationWarning."""


class _MovedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds only the old names, after every other finder has failed to."""

    def __init__(self, moved: Mapping[str, str]):
        self.moved = dict(moved)

    def find_spec(self, fullname: str, path: object = None,
                  target: object = None) -> importlib.machinery.ModuleSpec | None:
        return importlib.util.spec_from_loader(fullname, self) if fullname in self.moved else None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        new = self.moved[spec.name]
        warnings.warn(f"{spec.name} moved to {new}; update the path (the old one stops working in {REMOVED_IN})",
                      MovedModuleWarning, stacklevel=2)
        return importlib.import_module(new)

    def exec_module(self, module: ModuleType) -> None:
        """The module is the new one, already executed."""


def alias_moved_modules(moved: Mapping[str, str]) -> None:
    """Let `import OLD` return module NEW for each pair (appended to `sys.meta_path`, so a
    real module of the old name, should one come back, always wins)."""
    sys.meta_path.append(_MovedModules(moved))


def moved_names(old: str, new: str, namespace: dict[str, Any]) -> Callable[[str], Any]:
    """A module `__getattr__` for a module `old` that became a package: its public names now
    live in module `new`, and reading one through `old` warns once and then works."""

    def __getattr__(name: str) -> Any:
        module = importlib.import_module(new)
        if name.startswith("_") or not hasattr(module, name):
            raise AttributeError(f"module {old!r} has no attribute {name!r}")
        warnings.warn(f"{old}.{name} moved to {new}.{name}; update the path (the old one stops working in "
                      f"{REMOVED_IN})", MovedModuleWarning, stacklevel=2)
        value = namespace[name] = getattr(module, name)
        return value

    return __getattr__

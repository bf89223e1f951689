"""PEPPER's steps: preferences from reviews (`preferences`), reflection on shown items and the
seeker's reply (`reflect`).

Until 0.2.7 both were one module, `agents.steps.preferences`; that old path now imports this
package (with a warning), so every public name it had resolves here, from either module,
until 0.3. Nothing is imported until a name is asked for.
"""

from __future__ import annotations

import importlib
from typing import Any

_MODULES = ("agents.steps.pepper.preferences", "agents.steps.pepper.reflect")


def __getattr__(name: str) -> Any:
    if not name.startswith("_"):
        for path in _MODULES:
            module = importlib.import_module(path)
            if name in vars(module):
                return vars(module)[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

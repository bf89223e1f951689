"""Check a run's overrides compose before Hydra runs them: one line per mistake.

Hydra reports an unknown key or config option in several lines ending in a pointer to
`HYDRA_FULL_ERROR`; in a sweep it does so only when the bad job comes up. Composing every
job of the sweep first (cheap: no agent is built) turns each mistake into one
`crsim: error:` line that names the key and what would work, before anything runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from environments.errors import CrsimError

MAX_JOBS_CHECKED = 64


def check_overrides(config_dir: Path, overrides: Sequence[str]) -> None:
    """Compose the config for every sweep job `overrides` make; `CrsimError` for the first that fails."""
    from hydra._internal.core_plugins.basic_sweeper import BasicSweeper
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.errors import HydraException

    from simulators.engine.hydra_setup import compose_config

    plain = [o for o in overrides if "=" in o and not o.startswith("-")]
    try:
        parsed = OverridesParser.create().parse_overrides(plain)
    except HydraException as exc:
        raise CrsimError(f"cannot read the overrides: {_first_line(exc)}") from None
    jobs = [job for batch in BasicSweeper.split_arguments(parsed, None) for job in batch] or [[]]
    for job in jobs[:MAX_JOBS_CHECKED]:
        try:
            compose_config([o for o in job if _composable(o)], config_dir)
        except HydraException as exc:
            raise CrsimError(explain(exc)) from None


def explain(exc: Exception) -> str:
    """Hydra's message in one line: what is wrong, and the options or syntax that would work."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    first = lines[0] if lines else type(exc).__name__
    if first.startswith("Could not override"):
        key = first.split("'")[1] if "'" in first else "the key"
        return f"{first} There is no key '{key}' in the config (check its spelling; +{key}=VALUE adds a new one)."
    if "Available options in" in str(exc):
        start = next(i for i, line in enumerate(lines) if line.startswith("Available options"))
        options = [line for line in lines[start + 1:] if " " not in line]
        return f"{first}; available: {', '.join(options)}"
    return first


def _composable(override: str) -> bool:
    """Hydra's own settings are not part of the job config, except where to find configs."""
    return not override.lstrip("+~").startswith(("hydra.", "hydra/")) or override.startswith("hydra.searchpath")


def _first_line(exc: Exception) -> str:
    return next((line.strip() for line in str(exc).splitlines() if line.strip()), type(exc).__name__)

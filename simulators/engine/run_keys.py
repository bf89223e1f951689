"""The top-level keys every run has, checked before anything is built.

Hydra passes command-line values through as whatever YAML makes of them: `seed=abc` is
the string 'abc', `episodes=-1` a negative number. Left alone, the first runs with a
meaningless count and the second dies in a traceback somewhere deep; so the keys are
validated against a typed schema first and a bad one ends the run with one line that
says what to write instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from environments.errors import CrsimError


class Budget(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")

    max_tokens: int | None = Field(default=None, ge=1)
    max_cost_usd: float | None = Field(default=None, gt=0)


class Runner(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")

    backend: Literal["asyncio", "processes", "ray"] = "asyncio"
    workers: int = Field(default=2, ge=1)
    ray_address: str | None = None


class RunKeys(BaseModel):
    """`episodes`, `max_turns`, `seed`, `concurrency`, `progress`, `budget`, `runner`."""

    model_config = ConfigDict(strict=True, extra="ignore")

    episodes: int = Field(ge=1)
    max_turns: int = Field(ge=1)
    seed: int = Field(ge=0)
    concurrency: int = Field(ge=1)
    progress: bool = True
    budget: Budget = Field(default_factory=Budget)
    runner: Runner = Field(default_factory=Runner)


HINTS = {
    "episodes": "a whole number of episodes >= 1, e.g. episodes=100",
    "max_turns": "a whole number of turns >= 1, e.g. max_turns=5",
    "seed": "a whole number >= 0, e.g. seed=3",
    "concurrency": "a whole number >= 1 of episodes in flight, e.g. concurrency=8",
    "progress": "true or false, e.g. progress=false",
    "budget": "budget.max_tokens=200000 and/or budget.max_cost_usd=5 (or null for no limit)",
    "budget.max_tokens": "a whole number of tokens >= 1, or null, e.g. budget.max_tokens=200000",
    "budget.max_cost_usd": "a number of US dollars > 0, or null, e.g. budget.max_cost_usd=5",
    "runner": "runner.backend=asyncio, processes or ray, and runner.workers=2",
    "runner.backend": "asyncio (one process), processes (worker processes) or ray (Ray actors), "
                      "e.g. runner.backend=processes",
    "runner.ray_address": "a Ray address (auto, ray://head:10001) or null for a local instance",
    "runner.workers": "a whole number of worker processes >= 1, e.g. runner.workers=2",
}


def check_run_keys(config: Mapping[str, Any]) -> RunKeys:
    """The validated keys; `CrsimError` naming the first bad one and what to write instead."""
    values = {key: config.get(key) for key in ("episodes", "max_turns", "seed", "concurrency", "progress")}
    values = {key: value for key, value in values.items() if value is not None or key != "progress"}
    for key in ("budget", "runner"):
        node = config.get(key)
        if node is not None:
            values[key] = dict(node) if isinstance(node, Mapping) else node
    try:
        keys = RunKeys.model_validate(values)
    except ValidationError as exc:
        error = exc.errors()[0]
        key = ".".join(str(part) for part in error["loc"])
        given = error.get("input")
        shown = "missing" if given is None and error["type"] == "missing" else f"{key}={given!r}"
        hint = HINTS.get(key, HINTS.get(key.split(".")[0], "see `crsim --help`"))
        raise CrsimError(f"{shown} is not valid: write {hint}") from None
    if keys.runner.backend != "asyncio" and (keys.budget.max_tokens or keys.budget.max_cost_usd):
        raise CrsimError("a budget cannot be shared between worker processes: use runner.backend=asyncio "
                         "with budget.max_tokens / budget.max_cost_usd")
    return keys

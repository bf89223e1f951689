"""Which entry of a protocol's pool an episode runs: named, by episode index, or drawn.

Protocols with one episode per pool entry (a user, a goal set, a real conversation) all
pick the same way: `options={key: id}` names an entry (a replay, a test), otherwise episode
i runs entry i modulo the pool (so a run covers distinct entries), and an environment reset
without an index draws one with the episode's seeded generator.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np

T = TypeVar("T")


def pick_entry(pool: Sequence[T], options: Mapping[str, Any] | None, key: str, id_of: Callable[[T], str],
               rng: np.random.Generator, what: str) -> T:
    """The pool entry for this episode; `what` names the pool in the error for an unknown id."""
    options = options or {}
    if key in options:
        matches = [entry for entry in pool if id_of(entry) == options[key]]
        if not matches:
            raise ValueError(f"{key} '{options[key]}' is not {what}")
        return matches[0]
    if options.get("episode_index") is not None:
        return pool[int(options["episode_index"]) % len(pool)]
    return pool[int(rng.integers(len(pool)))]

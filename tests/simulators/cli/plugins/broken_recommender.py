"""A test plug-in recommender that raises on chosen moves, so commands meet failed units.

`episodes` (indices, with the run's `run_seed`) and `turns` (recommender turn numbers)
pick the moves that fail; None means every one, so by default every move fails. Otherwise
it scores every item of its view the same (the environment's tie-break orders them)."""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.base import recommender_from_function
from environments.base import Recommendation
from simulators.engine.episode import episode_seed


def build(catalog: Any, llm: Any = None, episodes: list[int] | None = None, turns: list[int] | None = None,
          run_seed: int = 0) -> Any:
    doomed = None if episodes is None else {episode_seed(run_seed, i) for i in episodes}
    scores = np.zeros(len(catalog.items))

    def respond(observation: Any) -> Recommendation:
        if (doomed is None or observation.episode_seed in doomed) and (turns is None or observation.turn in turns):
            raise RuntimeError(f"broken recommender: told to fail at turn {observation.turn}")
        return Recommendation(question="Anything else?", scores=scores)

    return recommender_from_function(respond)

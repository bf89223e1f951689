"""A test plug-in seeker that kills its own worker process (SIGKILL, as the OOM killer
would) when it meets episode `die_at`, only inside a worker process (the parent builds
the agents once but runs no episode), and only once: the death leaves the file named by
`$CRSIM_TEST_DIED` behind, and no worker dies while it exists. The config, and so the
config hash, is the same for the run that dies and the one that resumes it."""

from __future__ import annotations

import multiprocessing
import os
import signal
from typing import Any

from agents.seekers.target_biased import build as build_target_biased
from simulators.engine.episode import episode_seed


def build(llm: Any = None, die_at: int = 3, run_seed: int = 0, **options: Any) -> Any:
    seeker = build_target_biased(llm, **options)
    respond = seeker.respond
    doomed = episode_seed(run_seed, die_at)

    async def dying(observation: Any, state: Any) -> Any:
        flag = os.environ.get("CRSIM_TEST_DIED")
        if observation.episode_seed == doomed and multiprocessing.current_process().name != "MainProcess" \
                and flag and not os.path.exists(flag):
            open(flag, "w").close()
            os.kill(os.getpid(), signal.SIGKILL)
        return await respond(observation, state)

    seeker.respond = dying  # type: ignore[method-assign]
    return seeker

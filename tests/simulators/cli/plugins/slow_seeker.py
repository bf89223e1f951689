"""A test plug-in seeker that sleeps `$CRSIM_TEST_SLOW_SECONDS` before each reply (none
when it is unset), so a run lasts long enough for a second one to meet it. Timing is not
configuration: the config, and so the config hash and every logged episode, is the same
with or without the sleep."""

from __future__ import annotations

import asyncio
import os
from typing import Any

from agents.seekers.target_biased import build as build_target_biased


def build(llm: Any = None, **options: Any) -> Any:
    seeker = build_target_biased(llm, **options)
    respond = seeker.respond

    async def slow(observation: Any, state: Any) -> Any:
        await asyncio.sleep(float(os.environ.get("CRSIM_TEST_SLOW_SECONDS") or 0))
        return await respond(observation, state)

    seeker.respond = slow  # type: ignore[method-assign]
    return seeker

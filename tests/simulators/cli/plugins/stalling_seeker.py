"""A test plug-in seeker whose build stalls inside a worker process, as a slow import or a
cold cache keeps a worker starting: it appends its process id to the file named by
`$CRSIM_TEST_STALLED`, then sleeps `$CRSIM_TEST_STALL_SECONDS`. The parent (which builds
the agents once before the workers start) never stalls, and nothing stalls while the
variables are unset. The config, and so the config hash, is the same either way."""

from __future__ import annotations

import multiprocessing
import os
import time
from typing import Any

from agents.seekers.target_biased import build as build_target_biased


def build(llm: Any = None, **options: Any) -> Any:
    flag = os.environ.get("CRSIM_TEST_STALLED")
    if flag and multiprocessing.current_process().name != "MainProcess":
        with open(flag, "a", encoding="utf-8") as handle:
            handle.write(f"{os.getpid()}\n")
        time.sleep(float(os.environ.get("CRSIM_TEST_STALL_SECONDS") or 0))
    return build_target_biased(llm, **options)

"""Run a run's episodes in worker processes (`runner.backend=processes`).

Offline episodes are CPU-bound Python: one process uses one core however many asyncio
tasks it has. Each worker (spawned, so nothing is inherited half-initialised) builds the
environment setup and the agents once from the resolved config, the way `crsim replay`
rebuilds a run, with one BLAS/OpenMP thread (`../shared/DESIGN.md` §7: two threads per
process on two cores collapse under contention), and then runs the episodes it is handed,
asyncio inside (LLM-bound episodes still overlap within a worker). Only the parent writes
the logs, so lines never interleave; episodes finish in any order, and an episode's
content depends only on the seed and its index, so the log sorted by index is the same
as a one-process run's.

Limits: a run budget is per process and cannot be shared, so `budget` with this backend
is refused. The parent builds the agents once before the workers start, so cold caches
(embeddings, indexes) are filled once rather than by every worker at the same moment, and
language-model calls made while building are logged from that build; each worker repeats
them (the backends' response cache answers them when it is on; offline agents make none).
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import signal
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import TYPE_CHECKING, Any

from environments.errors import CrsimError

if TYPE_CHECKING:
    from simulators.engine.outcomes import OutcomeLines


class WorkerDied(CrsimError):
    """A worker process ended without finishing its episodes (killed, out of memory, crashed
    in native code). Episodes finished before are logged; the run stops with this line."""

SINGLE_THREAD = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
                 "TOKENIZERS_PARALLELISM": "false"}

_WORKER: dict[str, Any] = {}


def _start_worker(config: dict[str, Any], max_turns: int, seed: int, config_hash: str) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole group: the parent decides
    os.environ.update(SINGLE_THREAD)
    from simulators.engine.build import build_agents, build_setup
    from simulators.engine.hydra_setup import register_resolvers

    register_resolvers()
    setup = build_setup(config["environment"])
    _WORKER.update(setup=setup, agents=build_agents(config, setup), max_turns=max_turns, seed=seed,
                   config_hash=config_hash, loop=asyncio.new_event_loop())  # one loop for the worker's life


def _run_one(index: int) -> OutcomeLines:
    from simulators.engine.episode import run_episode
    from simulators.engine.outcomes import outcome_lines

    return outcome_lines(_WORKER["loop"].run_until_complete(run_episode(
        _WORKER["setup"], _WORKER["agents"], index=index, run_seed=_WORKER["seed"], max_turns=_WORKER["max_turns"],
        config_hash=_WORKER["config_hash"])))


def run_in_processes(config: dict[str, Any], indices: Iterable[int], *, workers: int, max_turns: int, seed: int,
                     config_hash: str, on_outcome: Callable[[OutcomeLines], None]) -> None:
    """Run `indices` across `workers` spawned processes; `on_outcome` (in this process)
    gets each finished episode's log lines as they arrive. At most two episodes per worker are queued,
    so an interrupt leaves little work thrown away and memory stays flat."""
    pending = list(indices)
    pending.reverse()
    # A killed worker leaves its queue's semaphores to multiprocessing's resource tracker,
    # which cleans them up and warns on stderr at exit; the run has reported the death in
    # its own line by then. The tracker inherits this environment when it starts.
    os.environ.setdefault("PYTHONWARNINGS", "ignore:resource_tracker:UserWarning")
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_start_worker,
                             initargs=(config, max_turns, seed, config_hash)) as pool:
        in_flight: set[Future[OutcomeLines]] = set()
        try:
            while pending or in_flight:
                while pending and len(in_flight) < 2 * workers:
                    in_flight.add(pool.submit(_run_one, pending.pop()))
                done, in_flight = wait(in_flight, return_when=FIRST_COMPLETED)
                for future in sorted(done, key=lambda f: f.exception() is not None):  # finished ones first
                    on_outcome(future.result())
        except BrokenProcessPool as exc:
            pool.shutdown(wait=False, cancel_futures=True)
            raise WorkerDied("a worker process died (killed, out of memory, or crashed outside Python); every "
                             "episode finished before is logged, none twice: run the same command again to "
                             "finish the rest") from exc
        except BaseException:
            for future in in_flight:
                future.cancel()
            pool.shutdown(wait=False, cancel_futures=True)
            raise

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

Ctrl-C reaches the whole process group, and the parent decides. A worker is started with
SIGINT blocked (as multiprocessing starts its resource tracker), so one that arrives before
the worker has set it to be ignored stays pending instead of breaking its imports with a
traceback; on an interrupt the parent terminates the workers rather than waiting for them,
since it logs nothing they finish afterwards and one still starting (a slow import, a cold
cache) would hold the interrupt up for as long.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.context import SpawnContext, SpawnProcess
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


@contextlib.contextmanager
def _sigint_blocked() -> Iterator[None]:
    """SIGINT blocked in this thread for the block; a process started inside inherits the mask."""
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


class _WorkerProcess(SpawnProcess):
    """A spawned worker that starts with SIGINT blocked (`_start_worker` ignores it, then unblocks it)."""

    def start(self) -> None:
        with _sigint_blocked():  # a Ctrl-C meanwhile reaches this process once the block ends
            super().start()


class _WorkerContext(SpawnContext):
    """The spawn context, its processes `_WorkerProcess`es, each one remembered."""

    def __init__(self) -> None:
        super().__init__()
        self.processes: list[_WorkerProcess] = []

    def Process(self, *args: Any, **kwargs: Any) -> _WorkerProcess:  # noqa: N802 - multiprocessing's name
        process = _WorkerProcess(*args, **kwargs)
        self.processes.append(process)
        return process

    def terminate(self) -> None:
        for process in self.processes:
            with contextlib.suppress(AttributeError, ValueError):  # not started, or closed: nothing to stop
                process.terminate()


def _start_worker(config: dict[str, Any], max_turns: int, seed: int, config_hash: str) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole group: the parent decides
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # blocked since the spawn; one pending is dropped
    os.environ.update(SINGLE_THREAD)
    from environments.search.embeddings import set_progress_bars
    from simulators.engine.build import build_agents, build_setup
    from simulators.engine.hydra_setup import register_resolvers

    register_resolvers()
    set_progress_bars(config.get("progress", True) is not False)  # as the run's: progress=false, no bars
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
    context = _WorkerContext()
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
        except BaseException:  # Ctrl-C, SIGTERM, a log that cannot be written: the run is over
            # The pool's own thread cancels the queued futures: cancelling them here as well could
            # race with it marking them failed once the workers are gone (InvalidStateError there).
            pool.shutdown(wait=False, cancel_futures=True)
            context.terminate()  # what they finish now would not be logged (module docstring)
            raise

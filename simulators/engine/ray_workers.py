"""Run a run's episodes on a Ray cluster (`runner.backend=ray`), one actor per worker.

The same design as `simulators.engine.workers` (worker processes on one machine), with Ray
actors in place of processes so the workers can live on other machines: each actor builds
the environment setup and the agents once from the resolved config (one BLAS thread),
then runs the episodes it is handed; only this process writes the logs. At most two
episodes per actor are in flight, so memory stays flat and an interrupt throws little
away. `runner.ray_address` names the cluster (`auto` inside a cluster job, or
`ray://head:10001`); null starts a local Ray instance on this machine, loopback only, and
stops it afterwards. An actor that dies (its node lost, the process killed) ends the run
like a dead worker process: what finished is logged once, the same command finishes it.

Ray is the `cluster` extra (`pip install 'crsim[cluster]'`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from environments.errors import CrsimError
from simulators.engine.workers import SINGLE_THREAD, WorkerDied

if TYPE_CHECKING:
    from simulators.engine.outcomes import OutcomeLines


class EpisodeWorker:
    """One worker: the setup and agents built once, then episodes by index."""

    def __init__(self, config: dict[str, Any], max_turns: int, seed: int, config_hash: str):
        import asyncio
        import os

        os.environ.update(SINGLE_THREAD)
        from environments.search.embeddings import set_progress_bars
        from simulators.engine.build import build_agents, build_setup
        from simulators.engine.hydra_setup import register_resolvers

        register_resolvers()
        set_progress_bars(config.get("progress", True) is not False)  # as the run's: progress=false, no bars
        self.setup = build_setup(config["environment"])
        self.agents = build_agents(config, self.setup)
        self.max_turns, self.seed, self.config_hash = max_turns, seed, config_hash
        self.loop = asyncio.new_event_loop()

    def run(self, index: int) -> OutcomeLines:
        from simulators.engine.episode import run_episode
        from simulators.engine.outcomes import outcome_lines

        return outcome_lines(self.loop.run_until_complete(run_episode(
            self.setup, self.agents, index=index, run_seed=self.seed, max_turns=self.max_turns,
            config_hash=self.config_hash)))


def run_in_ray(config: dict[str, Any], indices: Iterable[int], *, workers: int, max_turns: int, seed: int,
               config_hash: str, on_outcome: Callable[[OutcomeLines], None], address: str | None = None) -> None:
    """Run `indices` on `workers` Ray actors; `on_outcome` (here) gets each finished episode's log lines."""
    try:
        import ray
        from ray.exceptions import RayActorError
    except ImportError:
        raise CrsimError("runner.backend=ray needs Ray: pip install 'crsim[cluster]'") from None
    started_here = not ray.is_initialized()
    if started_here:
        with _sigterm_kept():
            if address:
                ray.init(address=address, log_to_driver=False)
            else:  # a local instance: this machine's cores, nothing listening beyond loopback
                ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False,
                         _node_ip_address="127.0.0.1")
    try:
        actor = ray.remote(num_cpus=1)(EpisodeWorker)
        pool = [actor.remote(config, max_turns, seed, config_hash) for _ in range(workers)]
        pending = list(indices)
        pending.reverse()
        in_flight: dict[Any, int] = {}  # object ref -> actor number
        load = [0] * workers
        try:
            while pending or in_flight:
                for number in range(workers):
                    while pending and load[number] < 2:
                        in_flight[pool[number].run.remote(pending.pop())] = number
                        load[number] += 1
                done, _ = ray.wait(list(in_flight), num_returns=1)
                for ref in done:
                    load[in_flight.pop(ref)] -= 1
                    on_outcome(ray.get(ref))
        except RayActorError as exc:
            raise WorkerDied("a Ray worker died (its process killed or its node lost); every episode finished "
                             "before is logged, none twice: run the same command again to finish the rest") from exc
        finally:  # killing an actor drops its queued episodes too (force-cancel is not for actor tasks)
            for worker in pool:
                ray.kill(worker)
    finally:
        if started_here:
            ray.shutdown()


@contextmanager
def _sigterm_kept() -> Iterator[None]:
    """This process's SIGTERM handler, put back after the block. `ray.init` installs its own,
    which exits with status 15 and no word on what was kept; `crsim run`'s turns SIGTERM
    into an interrupt (status 130, the finished episodes counted). Only the main thread may
    set a handler; elsewhere nothing is changed."""
    import signal
    import threading

    handler = signal.getsignal(signal.SIGTERM) if threading.current_thread() is threading.main_thread() else None
    try:
        yield
    finally:
        if handler is not None:
            signal.signal(signal.SIGTERM, handler)

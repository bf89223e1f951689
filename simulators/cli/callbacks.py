"""Hydra callbacks: a single run's directory locked before Hydra writes into it; after a
multirun, one comparison table over all its jobs.

The sweep callback also finds the jobs in which every episode failed (from their logs, so
it works under every launcher, whose jobs may run in other processes or machines) and leaves
one error line for `crsim run` to end the sweep with: Hydra ignores what a job returns and
turns a job's exception into a traceback that skips the summary, so neither can carry it.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from hydra.experimental.callback import Callback
from omegaconf import DictConfig

_sweep_errors: list[str] = []  # this process's finished sweeps that failed, for `crsim run` to report


def take_sweep_error() -> str | None:
    """The error line of the last sweep that ran in this process with jobs that measured
    nothing ('' when its jobs only lost some episodes; None: no such sweep), and forget it."""
    found = _sweep_errors[-1] if _sweep_errors else None
    _sweep_errors.clear()
    return found


class SweepSummary(Callback):
    """`metrics`: what the sweep's table and plot show (an experiment sets it under
    `hydra.callbacks.sweep_summary.metrics`); default: every metric, headline ones plotted."""

    def __init__(self, metrics: list[str] | None = None) -> None:
        self.metrics = list(metrics) if metrics else None

    def on_multirun_end(self, config: DictConfig, **kwargs: Any) -> None:
        from simulators.cli.failures import sweep_error, sweep_failures
        from simulators.results.sweep import summarize_sweep

        sweep_dir = Path(config.hydra.sweep.dir)
        try:
            summarize_sweep(sweep_dir, metrics=self.metrics)
            print(f"\nSweep summary: {sweep_dir / 'summary.csv'}  plot: {sweep_dir / 'summary.png'}")
        except FileNotFoundError as exc:
            print(f"crsim: no results to summarise in {sweep_dir}: {exc}")
        failed, jobs = sweep_failures(sweep_dir)
        if failed:
            _sweep_errors.append(sweep_error(failed, jobs))
        elif sweep_failures(sweep_dir, every=False)[0]:
            _sweep_errors.append("")  # some episodes failed: each job warned; the sweep exits 1


class RunDirLock(Callback):
    """A single run (`crsim run` without `-m`) takes its directory's lock
    (`simulators.engine.run_lock`) before Hydra writes `.hydra/` and its log file there, so
    a run refused because another one is running into the directory changes nothing in
    it; the job itself keeps the lock until it ends (`run.run_experiment`). A multirun's
    jobs, which a launcher may start anywhere, each take theirs when they start."""

    def on_run_start(self, config: DictConfig, **kwargs: Any) -> None:
        from simulators.cli.commands import exit_status
        from simulators.engine.run_lock import take_run_dir

        run_dir = _run_dir(config)
        if run_dir is None:  # not resolvable here: the job locks its directory when it starts
            return
        try:
            take_run_dir(run_dir)
        except Exception as exc:
            status = exit_status(exc)
            if status is None:
                raise
            sys.exit(status)

    def on_run_end(self, config: DictConfig, **kwargs: Any) -> None:
        from simulators.engine.run_lock import release_run_dir

        run_dir = _run_dir(config)
        if run_dir is not None:  # the job has released it already, unless it never started
            release_run_dir(run_dir)


def _run_dir(config: DictConfig) -> Path | None:
    """The directory Hydra will run the job in (`run_job` makes `hydra.run.dir` absolute the same way)."""
    from omegaconf import OmegaConf

    try:
        return Path(os.path.abspath(str(OmegaConf.select(config, "hydra.run.dir", throw_on_missing=True))))
    except Exception:  # noqa: BLE001 - an interpolation only Hydra's job setup can resolve
        return None

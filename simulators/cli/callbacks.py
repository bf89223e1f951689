"""Hydra callbacks: after a multirun, one comparison table over all its jobs.

The callback also finds the jobs in which every episode failed (from their logs, so it
works under every launcher, whose jobs may run in other processes or machines) and leaves
one error line for `crsim run` to end the sweep with: Hydra ignores what a job returns
and turns a job's exception into a traceback that skips the summary, so neither can carry it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hydra.experimental.callback import Callback
from omegaconf import DictConfig

_sweep_errors: list[str] = []  # this process's finished sweeps that failed, for `crsim run` to report


def take_sweep_error() -> str | None:
    """The error line of the last sweep that ran in this process with jobs that measured
    nothing (None: no such sweep), and forget it."""
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

"""Hydra callbacks: after a multirun, one comparison table over all its jobs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hydra.experimental.callback import Callback
from omegaconf import DictConfig


class SweepSummary(Callback):
    """`metrics`: what the sweep's table and plot show (an experiment sets it under
    `hydra.callbacks.sweep_summary.metrics`); default: every metric, headline ones plotted."""

    def __init__(self, metrics: list[str] | None = None) -> None:
        self.metrics = list(metrics) if metrics else None

    def on_multirun_end(self, config: DictConfig, **kwargs: Any) -> None:
        from simulators.results.sweep import summarize_sweep

        sweep_dir = Path(config.hydra.sweep.dir)
        try:
            summarize_sweep(sweep_dir, metrics=self.metrics)
        except FileNotFoundError as exc:
            print(f"crsim: no results to summarise in {sweep_dir}: {exc}")
            return
        print(f"\nSweep summary: {sweep_dir / 'summary.csv'}  plot: {sweep_dir / 'summary.png'}")

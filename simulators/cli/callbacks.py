"""Hydra callbacks: after a multirun, one comparison table over all its jobs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hydra.experimental.callback import Callback
from omegaconf import DictConfig


class SweepSummary(Callback):
    def on_multirun_end(self, config: DictConfig, **kwargs: Any) -> None:
        from simulators.sweep_summary import summarize_sweep

        sweep_dir = Path(config.hydra.sweep.dir)
        try:
            summarize_sweep(sweep_dir)
        except FileNotFoundError as exc:
            print(f"crsim: no results to summarise in {sweep_dir}: {exc}")
            return
        print(f"\nSweep summary: {sweep_dir / 'summary.csv'}  plot: {sweep_dir / 'summary.png'}")

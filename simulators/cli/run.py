"""`crsim run`: compose the config with Hydra, build everything from `_target_`s, run, report.

Agents and environments are built only through `hydra.utils.instantiate`, so a user's
own recommender plugs in with a YAML file naming its factory — no registry to edit.
Input and configuration errors (`CrsimError`) end the job with one clear line and exit
status 2 instead of a traceback. SIGINT and SIGTERM stop the run between log lines:
finished episodes stay logged, the run says how many and how to resume, and exits 130.
A run in which every episode failed is such an error too (`simulators.cli.failures`); in a
sweep the other jobs run on and the sweep exits 2 after its summary. A run or sweep in which
some episodes failed prints its table, one warning, and exits 1.
A run holds a lock on its directory while it runs: a second run into it stops at once.
"""

from __future__ import annotations

import asyncio
import json
import signal
import sys
from pathlib import Path
from typing import Any

from simulators.engine.hydra_setup import CONF_DIR, quiet_environment, register_resolvers


def run_hydra(overrides: list[str]) -> int:
    """Hand the overrides to a Hydra app (single run or multirun)."""
    import hydra

    quiet_environment()
    register_resolvers()
    if not CONF_DIR.is_dir():
        print(f"crsim: config directory {CONF_DIR} not found (install crsim with `pip install -e .`)",
              file=sys.stderr)
        return 2

    from simulators.cli.commands import USER_ERROR, exit_status
    from simulators.cli.failures import SOME_FAILED
    from simulators.cli.precheck import check_overrides

    try:
        check_overrides(CONF_DIR, overrides)
    except Exception as exc:
        status = exit_status(exc)
        if status is None:
            raise
        return status

    @hydra.main(version_base="1.3", config_path=str(CONF_DIR), config_name="config")
    def app(cfg: Any) -> None:
        run_experiment(cfg)

    from simulators.cli.callbacks import take_sweep_error

    saved = sys.argv
    sys.argv = ["crsim run", *overrides]
    previous = signal.signal(signal.SIGTERM, _interrupt)
    take_sweep_error()  # nothing left over from an earlier sweep in this process
    try:
        app()
    except SystemExit as exc:
        return int(exc.code or 0) if isinstance(exc.code, int) else 1
    finally:
        sys.argv = saved
        signal.signal(signal.SIGTERM, previous)
    failed = take_sweep_error()  # jobs in which every episode failed: the sweep ran on, now it fails
    if failed:
        print(f"crsim: error: {failed}", file=sys.stderr)
        return USER_ERROR
    return SOME_FAILED if failed == "" else 0


def _interrupt(signum: int, frame: Any) -> None:
    """SIGTERM ends a run the way Ctrl-C does (a scheduler or `kill` asks politely)."""
    raise KeyboardInterrupt


def run_experiment(cfg: Any) -> Any:
    """The body of one Hydra job: build, run, score, report. Returns the results frame.

    The job holds its directory's lock (`engine/run_lock.py`) throughout, so a second run
    into the same directory stops before it writes anything; a single run has taken it
    already (`callbacks.RunDirLock`), before Hydra wrote its own files there."""
    from hydra.core.hydra_config import HydraConfig
    from hydra.types import RunMode

    from environments.search.embeddings import progress_bars
    from simulators.cli.commands import exit_status
    from simulators.engine.run_keys import check_run_keys
    from simulators.engine.run_lock import run_dir_lock

    sweep = HydraConfig.get().mode == RunMode.MULTIRUN
    hint = "give the sweep its own hydra.sweep.dir" if sweep else "give it its own hydra.run.dir"
    try:
        with run_dir_lock(Path(HydraConfig.get().runtime.output_dir), hint=hint), \
                progress_bars(check_run_keys(cfg).progress):  # progress=false: no catalog-embedding bar either
            return _run(cfg)
    except (Exception, KeyboardInterrupt) as exc:
        status = exit_status(exc, lambda: interrupted_summary(cfg))
        if status is None:
            raise
        sys.exit(status)


def interrupted_summary(cfg: Any) -> str:
    """How far an interrupted run got and how to finish it."""
    from hydra.core.hydra_config import HydraConfig

    from simulators.engine.config_hash import config_hash
    from simulators.engine.runner import logged_episodes

    run_dir = Path(HydraConfig.get().runtime.output_dir)
    done = logged_episodes(run_dir, config_hash(cfg))
    return (f"{len(done)} of {cfg.get('episodes')} episodes are finished and logged in {run_dir}; "
            f"run the same command with hydra.run.dir={run_dir} to finish the rest")


def _run(cfg: Any) -> Any:
    from hydra.core.hydra_config import HydraConfig
    from hydra.types import RunMode
    from omegaconf import OmegaConf

    from agents.llm.budget import RunBudget
    from environments.errors import CrsimError
    from simulators.cli.failures import SOME_FAILED, log_failures, warn
    from simulators.engine.build import build_setup, metric_specs
    from simulators.engine.config_hash import config_hash, resolved_config
    from simulators.engine.run_keys import check_run_keys
    from simulators.engine.runner import build_agents_recorded, run_episodes, run_episodes_in_processes
    from simulators.evaluators.base import build_evaluators, run_evaluators
    from simulators.metrics import build_metrics
    from simulators.results.plots import headline_metrics, plot_metrics_vs_turn
    from simulators.results.remote import REMOTE_FILE, remote_summary
    from simulators.results.table import print_results, results_frame, table_console, write_results_csv
    from simulators.results.usage import has_usage, render_usage_table, usage_frame, write_usage_csv

    keys = check_run_keys(cfg)
    run_dir = Path(HydraConfig.get().runtime.output_dir)
    digest = config_hash(cfg)
    (run_dir / "config.yaml").write_text(OmegaConf.to_yaml(cfg, resolve=True), encoding="utf-8")
    (run_dir / "config_hash.txt").write_text(digest + "\n", encoding="utf-8")

    metrics = build_metrics(metric_specs(cfg.environment))
    evaluators = build_evaluators(cfg.get("evaluators"))
    setup = build_setup(cfg.environment)
    if keys.runner.backend in ("processes", "ray"):
        # Built once here first so that cold caches (embeddings, indexes) are filled once,
        # not by every worker at the same time; the workers then load them.
        build_agents_recorded(cfg, setup, run_dir=run_dir, budget=None)
        summary = run_episodes_in_processes(
            resolved_config(cfg), workers=keys.runner.workers, episodes=keys.episodes, max_turns=keys.max_turns,
            seed=keys.seed, run_dir=run_dir, config_hash=digest, progress=keys.progress,
            backend=keys.runner.backend, ray_address=keys.runner.ray_address)
    else:
        budget = RunBudget(max_tokens=keys.budget.max_tokens, max_cost_usd=keys.budget.max_cost_usd)
        agents = build_agents_recorded(cfg, setup, run_dir=run_dir, budget=budget)
        summary = asyncio.run(run_episodes(
            setup, agents, episodes=keys.episodes, max_turns=keys.max_turns, seed=keys.seed,
            concurrency=keys.concurrency, run_dir=run_dir, config_hash=digest, progress=keys.progress,
            budget=budget))
    usage = summary.usage or {}
    (run_dir / "llm_usage.json").write_text(json.dumps(usage, indent=2) + "\n", encoding="utf-8")
    console = table_console()
    frame = results_frame(summary.episodes, keys.max_turns, metrics, seed=keys.seed)  # streamed from the log
    write_results_csv(frame, run_dir / "results.csv")
    usage_table = usage_frame(summary.episodes, seed=keys.seed)
    write_usage_csv(usage_table, run_dir / "usage.csv")
    for problem in summary.problems:  # after reading: a line that is JSON but no episode is found then
        console.print(f"[yellow]skipped log line[/] {problem}", markup=True, highlight=False)
    name = HydraConfig.get().job.override_dirname or "run"
    headline = headline_metrics([m.name for m in metrics])
    plot_metrics_vs_turn({name: frame}, run_dir / "metrics.png", metrics=headline)
    note = f"ran {summary.ran}, resumed {summary.skipped}, errors {summary.errors}"
    if usage.get("calls"):
        note += (f"; LLM {usage['calls']} calls, {usage['input_tokens']}+{usage['output_tokens']} tokens, "
                 f"${usage['cost_usd']:.4f}" + (f" ({usage['unpriced_calls']} unpriced)" if usage["unpriced_calls"] else ""))
    if summary.not_started or usage.get("exhausted"):
        ended = summary.episodes.count("budget")
        note += f"; BUDGET EXHAUSTED: {ended} episodes ended on it, {summary.not_started} not started"
    remote = remote_summary(summary.episodes)
    if remote is not None:
        (run_dir / REMOTE_FILE).write_text(remote.model_dump_json(indent=2) + "\n", encoding="utf-8")
        note += "; " + remote.line()
    failures = log_failures(summary.episodes)
    if HydraConfig.get().mode == RunMode.MULTIRUN:  # the sweep's comparison table follows at the end
        final = frame[(frame.turn == keys.max_turns) & (frame.metric == headline[0])]
        shown = f"{headline[0]} at turn {keys.max_turns}: {final['mean'].iloc[0]:.3f}" if len(final) else ""
        console.print(f"{name}: {len(summary.episodes)} episodes, {shown}; {note}", highlight=False, markup=False)
        if failures.every:  # the other jobs still run; the sweep fails at its end (callbacks.SweepSummary)
            print(f"crsim: error: {failures.error(name, 'episode')}", file=sys.stderr)
            return frame
        if failures.failed:
            warn(failures.warning(name, "episode"))
        run_evaluators(evaluators, summary.episodes, setup, run_dir)  # written, not printed, in a sweep
        return frame
    if failures.every:  # nothing was measured: no table of dashes, no evaluators on crashed episodes
        raise CrsimError(failures.error("this run", "episode"))
    print_results(frame, title=f"{name} — {len(summary.episodes)} episodes", console=console)
    run_evaluators(evaluators, summary.episodes, setup, run_dir, console)
    if has_usage(usage_table):
        console.print(render_usage_table({name: usage_table}))
    console.print(f"{note}; results in {run_dir}", highlight=False, markup=False)
    if failures.failed:
        warn(failures.warning("this run", "episode"))
        sys.exit(SOME_FAILED)
    return frame

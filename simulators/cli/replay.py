"""`crsim replay LOG`: re-score, render, re-execute, or re-run one side of logged episodes.

LOG is a run directory, its `episodes.jsonl`, or any episode log (e.g. an imported
`dialogues.jsonl`). Exit status: 0 when the replay did what was asked (and re-scoring or
re-execution found the log reproduced), 1 when it found a difference, 2 on bad input.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from simulators.cli.commands import command

DESCRIPTION = """\
Replay logged episodes. One mode:
  --rescore            recompute every metric from the log with the current metric code and
                       print the table (checked against the run's results.csv)
  --render             print transcripts: items shown each turn, what the evaluator recorded
                       (target ranks, item sets), feedback
  --reexecute          run the episodes again with the recorded LLM answers and seeds, and
                       report whether every transcript is identical (else the first difference)
  --fix ROLE           hold the logged moves of ROLE (e.g. seeker) fixed and run the other
                       roles' agents against them (--agent ROLE=NAME, default: the run's own)
  --resume-from T      replay the first T turns of each episode, then continue with new agents
                       (--agent ROLE=NAME, default: the run's own); they remember the logged turns
New agents: --agent ROLE=NAME (a conf/ROLE option; repeatable); --recommender NAME and
--seeker NAME are short for --agent recommender=NAME / seeker=NAME.
Trailing KEY=VALUE arguments are Hydra overrides for the new agent(s), e.g.
  crsim replay outputs/runs/X --fix seeker --recommender dense recommender.question_pool=20
"""


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="crsim replay", description=DESCRIPTION,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("log", type=Path, help="run directory or episode log (.jsonl)")
    mode = p.add_mutually_exclusive_group(required=True)
    mode.add_argument("--rescore", action="store_true")
    mode.add_argument("--render", action="store_true")
    mode.add_argument("--reexecute", action="store_true")
    mode.add_argument("--fix", metavar="ROLE")
    mode.add_argument("--resume-from", type=int, metavar="T")
    p.add_argument("--episode", action="append", default=[], metavar="ID", help="only this episode (repeatable)")
    p.add_argument("--agent", action="append", default=[], metavar="ROLE=NAME",
                   help="conf/ROLE option for a re-run role (repeatable)")
    p.add_argument("--recommender", metavar="NAME", help="short for --agent recommender=NAME")
    p.add_argument("--seeker", metavar="NAME", help="short for --agent seeker=NAME")
    p.add_argument("--catalog", type=Path, help="catalog directory for item titles (--render)")
    p.add_argument("--out", type=Path, help="where re-run episodes are logged (default: inside the run)")
    p.add_argument("overrides", nargs="*", help="Hydra overrides for the new agent(s)")
    return p


@command()
def main(argv: list[str]) -> int:
    return _dispatch(parser().parse_intermixed_args(argv))


def _dispatch(args: argparse.Namespace) -> int:
    from simulators.engine.hydra_setup import quiet_environment
    from simulators.results.runlog import load_run
    from simulators.results.table import table_console

    quiet_environment()
    console = table_console()
    run = load_run(args.log)
    for problem in run.problems:
        console.print(f"skipped {problem}", highlight=False, markup=False)
    episodes = [run.episode(i) for i in args.episode] if args.episode else run.episodes
    if not episodes:
        from environments.errors import CrsimError

        raise CrsimError(f"{run.log_path}: no readable episode in the log")
    if args.rescore:
        return _rescore(run, console)
    if args.render:
        return _render(run, episodes, args.catalog, console)
    if args.reexecute:
        return _reexecute(run, episodes, args.out, console)
    return _rerun_side(run, episodes, args, console)


def _rescore(run: Any, console: Any) -> int:
    from simulators.replay.rescore import compare_with_logged, dialogue_stats, has_records, rescore
    from simulators.results.table import print_results
    from simulators.results.usage import has_usage, render_usage_table, usage_frame

    if not has_records(run.episodes):
        console.print(dialogue_stats(run.episodes))
        return 0
    frame = rescore(run)
    print_results(frame, title=f"{run.label} — re-scored, {len(run.episodes)} episodes", console=console)
    usage = usage_frame(run.episodes, seed=run.seed)
    if has_usage(usage):
        console.print(render_usage_table({run.label: usage}))
    checked = compare_with_logged(run, frame)
    if checked is None:
        console.print("(no results.csv next to the log to compare with)")
        return 0
    path, differences = checked
    if not differences:
        console.print(f"identical to {path}", highlight=False)
        return 0
    console.print(f"differs from {path} in {len(differences)} cells:", highlight=False)
    for line in differences[:20]:
        console.print(f"  {line}", highlight=False)
    return 1


def _render(run: Any, episodes: list, catalog: Path | None, console: Any) -> int:
    from simulators.replay.render import render_episode

    items = _items(run, catalog, console)
    for episode in episodes:
        render_episode(episode, items, console)
    return 0


def _items(run: Any, catalog: Path | None, console: Any) -> dict:
    from simulators.report.cards import load_catalog_dir, try_config_catalog

    if catalog is not None:
        return {item.id: item for item in load_catalog_dir(catalog).items}
    notes: list[str] = []
    loaded = try_config_catalog(run, notes)
    for note in notes:
        console.print(f"({note}; pass --catalog DIR)", highlight=False, markup=False)
    return {item.id: item for item in loaded.items} if loaded is not None else {}


def _out_lock(out_dir: Path) -> Any:
    """A replay writes a run-style log of its own, starting it afresh: it holds that
    directory's run lock meanwhile, so it never empties or appends to a directory a run,
    a generator or another replay is writing (`--out` may name one)."""
    from simulators.engine.run_lock import run_dir_lock

    return run_dir_lock(out_dir, "crsim replay", hint="give it its own --out")


def _config_hash(run: Any) -> str:
    path = run.run_dir / "config_hash.txt"
    return path.read_text(encoding="utf-8").strip() if path.is_file() else run.episodes[0].config_hash


def _reexecute(run: Any, episodes: list, out: Path | None, console: Any) -> int:
    from simulators.engine.runner import build_agents_recorded
    from simulators.replay.agents_config import build_setup, run_config, with_replayed_llms
    from simulators.replay.compare import first_divergence
    from simulators.replay.execute import fresh_logs, replay_episodes, save_replay_config

    config = run_config(run)
    setup = build_setup(config["environment"])
    config = with_replayed_llms(run, config, setup.roles)
    out_dir = out or run.run_dir / "reexecute"
    with _out_lock(out_dir):
        logs = fresh_logs(out_dir)
        agents = build_agents_recorded(config, setup, run_dir=out_dir, budget=None)
        done = replay_episodes(setup, episodes, lambda _: agents, run_seed=run.seed,
                               max_turns=run.max_turns, config_hash=_config_hash(run), logs=logs)
        save_replay_config(out_dir, config, {"mode": "reexecute", "source": str(run.log_path)})
    divergences = [d for d in (first_divergence(r.original, r.replayed) for r in done) if d]
    errors = {r.replayed.id: r.replayed.error for r in done if r.replayed.error and not r.original.error}
    if not divergences:
        console.print(f"re-executed {len(done)} episodes: every transcript is identical to the log "
                      f"(re-executed log in {out_dir})", highlight=False)
        return 0
    console.print(f"re-executed {len(done)} episodes: {len(divergences)} differ from the log", highlight=False)
    for divergence in divergences[:10]:
        console.print(f"  first difference in {divergence}", highlight=False, markup=False)
        if divergence.episode_id in errors:
            console.print(f"    re-executed episode failed: {errors[divergence.episode_id].strip().splitlines()[-1]}",
                          highlight=False, markup=False)
    return 1


def _agent_names(args: argparse.Namespace, roles: tuple[str, ...]) -> dict[str, str]:
    """ROLE -> conf option from --agent ROLE=NAME, --recommender and --seeker; roles checked."""
    from environments.errors import CrsimError

    names: dict[str, str] = {}
    pairs = [item.split("=", 1) if "=" in item else [item, ""] for item in args.agent]
    pairs += [["recommender", args.recommender]] if args.recommender else []
    pairs += [["seeker", args.seeker]] if args.seeker else []
    for role, name in pairs:
        if not role or not name:
            raise CrsimError(f"--agent takes ROLE=NAME (e.g. --agent recommender=dense), got '{role}={name}'")
        if role not in roles:
            raise CrsimError(f"the run's environment has no role '{role}' (roles: {', '.join(roles)})")
        names[role] = name
    return names


def _rerun_side(run: Any, episodes: list, args: argparse.Namespace, console: Any) -> int:
    from environments.errors import CrsimError
    from simulators.engine.runner import build_agents_recorded
    from simulators.replay.agents_config import build_setup, compose_agent_config, run_config
    from simulators.replay.execute import fresh_logs, replay_episodes, save_replay_config
    from simulators.replay.scripted import ScriptedAgent
    from simulators.results.sweep import job_overrides

    config = run_config(run)
    setup = build_setup(config["environment"])
    roles = tuple(setup.roles)
    names = _agent_names(args, roles)
    if args.fix is not None and args.fix not in roles:
        raise CrsimError(f"--fix {args.fix}: the run's environment has no such role (roles: {', '.join(roles)})")
    if args.fix is not None and args.fix in names:
        raise CrsimError(f"--fix {args.fix} keeps the logged {args.fix}; name another role's agent instead")
    if args.resume_from is not None and args.resume_from < 0:
        raise CrsimError("--resume-from takes a turn number >= 0")
    live = tuple(role for role in roles if role != args.fix)
    searchpath = [o for o in job_overrides(run.run_dir) if o.startswith("hydra.searchpath")]
    new_config = dict(config)
    for role in live:
        if role in names:
            new_config[role] = compose_agent_config(role, names[role], config, args.overrides, searchpath)
    mode = f"fix-{args.fix}" if args.fix else f"resume-{args.resume_from}"
    label = "-".join(names.get(r) or "own" for r in live)
    out_dir = args.out or run.run_dir / f"replay-{mode}-{label}"
    with _out_lock(out_dir):
        logs = fresh_logs(out_dir)
        agents = build_agents_recorded(new_config, setup, run_dir=out_dir, budget=None, roles=live)

        def agents_for(episode: Any) -> dict[str, Any]:
            if args.fix is not None:
                return {**agents, args.fix: ScriptedAgent(args.fix, episode, setup.scripted_action)}
            return {role: ScriptedAgent(role, episode, setup.scripted_action, rounds=args.resume_from,
                                        successor=agents[role]) for role in roles}

        done = replay_episodes(setup, episodes, agents_for, run_seed=run.seed, max_turns=run.max_turns,
                               config_hash=_config_hash(run), logs=logs)
        save_replay_config(out_dir, new_config, {"mode": mode, "source": str(run.log_path),
                                                 "agents": {r: names.get(r) or "as logged" for r in live},
                                                 "overrides": list(args.overrides)})
        _compare_tables(run, [r.replayed for r in done], f"{mode} {label}", out_dir, console)
    errors = sum(1 for r in done if r.replayed.error)
    console.print(f"replayed {len(done)} episodes ({errors} errors); log in {out_dir}", highlight=False)
    return 0


def _compare_tables(run: Any, replayed: list, label: str, out_dir: Path, console: Any) -> None:
    """Logged vs re-run metrics per turn, and their paired differences at the last turn."""
    from simulators.report.paired import format_diff, paired_frame
    from simulators.report.tables import combined_frame, config_frames
    from simulators.results.plots import headline_metrics
    from simulators.results.runlog import LoggedRun
    from simulators.results.sweep import render_comparison_table
    from simulators.results.table import write_results_csv

    ids = {e.id for e in replayed}
    runs = [LoggedRun(out_dir / "episodes.jsonl", label, replayed, config=run.config),
            LoggedRun(run.log_path, "logged", [e for e in run.episodes if e.id in ids], config=run.config)]
    frames = config_frames(runs)
    write_results_csv(frames[label], out_dir / "results.csv")
    console.print(render_comparison_table(combined_frame(dict(reversed(frames.items()))),
                                          title=f"{run.label}: logged vs {label}"))
    pairs = paired_frame(runs, headline_metrics([m.name for m in run.metrics]), seed=run.seed)
    last = pairs[(pairs.turn == run.max_turns) & (pairs.n_pairs > 0)]
    for row in last.itertuples(index=False):
        console.print(f"paired difference at turn {row.turn}, {row.metric} ({label} - logged, n={row.n_pairs}): "
                      f"{format_diff(row.metric, row.diff, row.ci_low, row.ci_high)}", highlight=False)

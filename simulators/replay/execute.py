"""Running logged episodes again: every one with the same index and seed as in the log.

`replay_episodes` is the shared engine of re-execution, fixed-side replays and resumed
episodes: it takes, per logged episode, the agent of every role (live, scripted or a
scripted prefix handing over to a live one), runs the episode with the run's seed and
the episode's index (so the environment draws the same targets), puts the logged
evaluation records back for scripted moves, and logs the result like a run does, so
`crsim report` and `crsim replay --rescore` read it.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from environments.errors import CrsimError
from environments.models import Episode
from simulators.engine.episode import episode_seed, run_episode
from simulators.engine.logs import EPISODES_FILE, LLM_CALLS_FILE, TIMINGS_FILE
from simulators.engine.outcomes import RunLogs
from simulators.replay.scripted import logged_evaluations

Agents = dict[str, Any]  # role -> agent


@dataclass
class Replayed:
    original: Episode
    replayed: Episode


def replay_episodes(setup: Any, episodes: list[Episode], agents_for: Callable[[Episode], Agents], *,
                    run_seed: int, max_turns: int, config_hash: str, logs: RunLogs | None) -> list[Replayed]:
    """Run each logged episode again with `agents_for(episode)` (role -> agent); log into
    `logs` if given (see `fresh_logs`)."""
    for episode in episodes:
        if episode_seed(run_seed, episode.index) != episode.seed:
            raise CrsimError(f"episode {episode.id}: its seed does not follow from the run seed {run_seed} and "
                             f"its index {episode.index}; it was not logged by `crsim run` and cannot be re-run")
    check_targets(setup, episodes)

    async def run_all() -> list[Replayed]:
        done = []
        for episode in episodes:
            outcome = await run_episode(setup, agents_for(episode), index=episode.index, run_seed=run_seed,
                                        max_turns=max_turns, config_hash=config_hash)
            outcome.episode = logged_evaluations(episode, outcome.episode)
            if logs is not None:
                logs.write(outcome)
            done.append(Replayed(episode, outcome.episode))
        return done

    return asyncio.run(run_all())


def check_targets(setup: Any, episodes: list[Episode]) -> None:
    """Every logged target must be an item of the catalog the run's config builds again; if one
    is not, that catalog has changed since the run and the episode would draw another target."""
    catalog = getattr(setup, "catalog", None)
    known = getattr(catalog, "item_index", None)
    if known is None:
        return
    lost = [(episode, target) for episode in episodes for target in episode.targets if target not in known]
    if lost:
        episode, target = lost[0]
        where = f" at {catalog.path}" if getattr(catalog, "path", None) else ""
        affected = len({e.id for e, _ in lost})
        raise CrsimError(f"episode {episode.id}: its target '{target}' is not in the catalog the run's config "
                         f"builds ('{catalog.manifest.name}'{where}; {affected} of {len(episodes)} episodes have such "
                         "targets): the catalog changed since the run; replay with the run's catalog, or leave "
                         "those episodes out by naming others with --episode ID")


def fresh_logs(out_dir: Path) -> RunLogs:
    """A replay's output directory starts empty: its logs describe this replay only."""
    out_dir.mkdir(parents=True, exist_ok=True)
    for name in (EPISODES_FILE, LLM_CALLS_FILE, TIMINGS_FILE):
        (out_dir / name).unlink(missing_ok=True)
    return RunLogs(out_dir)


def save_replay_config(out_dir: Path, config: dict[str, Any], replay: dict[str, Any]) -> None:
    """The config the replay ran with (so its log can be replayed and reported on), plus
    what was replayed from where under `replay`."""
    import yaml

    (out_dir / "config.yaml").write_text(yaml.safe_dump({**config, "replay": replay}, sort_keys=False),
                                         encoding="utf-8")
    (out_dir / "replay.json").write_text(json.dumps(replay, indent=2) + "\n", encoding="utf-8")

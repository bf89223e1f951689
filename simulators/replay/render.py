"""A logged episode as a readable transcript in the terminal.

Each turn shows who spoke and what was said, the items shown with it (targets marked),
the feedback and item-set moves it made, and what the evaluator recorded after it (a
target's rank, the item set, ...; `simulators.results.evaluation_text`). Titles come from the
catalog when one is at hand, else ids are shown. Works for any protocol's log.
"""

from __future__ import annotations

from collections.abc import Mapping

from rich.console import Console, Group
from rich.panel import Panel
from rich.text import Text

from environments.models import Episode, Item
from simulators.engine.episode import error_line
from simulators.results.evaluation_text import describe_evaluation, records_by_source

ROLE_STYLE = {"recommender": "bold cyan", "seeker": "bold green"}
MAX_TARGETS_SHOWN = 5


def _name(item_id: str, items: Mapping[str, Item]) -> str:
    item = items.get(item_id)
    return f"{item.title} ({item_id})" if item else item_id


def _targets(episode: Episode, items: Mapping[str, Item]) -> str:
    if not episode.targets:
        return "target: none"
    if len(episode.targets) == 1:
        return f"target: {_name(episode.targets[0], items)}"
    shown = ", ".join(_name(t, items) for t in episode.targets[:MAX_TARGETS_SHOWN])
    more = f", +{len(episode.targets) - MAX_TARGETS_SHOWN} more" if len(episode.targets) > MAX_TARGETS_SHOWN else ""
    return f"{len(episode.targets)} targets: {shown}{more}"


def render_episode(episode: Episode, items: Mapping[str, Item], console: Console) -> None:
    by_source = records_by_source(episode.evaluations)
    targets = set(episode.targets)
    header = (f"episode {episode.id}  ·  {_targets(episode, items)}  ·  ended: {episode.termination.value}  ·  "
              f"{len(episode.turns)} turns  ·  seed {episode.seed}")
    blocks: list[Text | Group] = []
    for turn in episode.turns:
        line = Text()
        line.append(f"{turn.role:>11}: ", style=ROLE_STYLE.get(turn.role, "bold"))
        line.append(turn.text)
        parts: list[Text] = [line]
        record = by_source.get(turn.index)
        if record is not None:
            parts.append(Text(f"{'':13}{describe_evaluation(record, episode.targets)} (turn {record.turn})",
                              style="yellow"))
        for position, item_id in enumerate(turn.items_shown, start=1):
            mark = "  ← target" if item_id in targets else ""
            parts.append(Text(f"{'':13}{position}. {_name(item_id, items)}{mark}",
                              style="bold magenta" if mark else "dim"))
        for item_id, kind in turn.feedback.items():
            parts.append(Text(f"{'':13}feedback: {kind} {_name(item_id, items)}", style="italic"))
        for sign, moved in (("+", turn.added), ("-", turn.removed)):
            for item_id in moved:
                parts.append(Text(f"{'':13}set {sign} {_name(item_id, items)}", style="italic"))
        blocks.append(Group(*parts))
    if episode.error:
        blocks.append(Text(f"error: {error_line(episode.error)}", style="bold red"))
    console.print(Panel(Group(*blocks), title=header, title_align="left"))

"""A logged episode as a readable transcript in the terminal.

Each turn shows who spoke and what was said; a recommender turn lists the items it showed
(the target marked) and where the target ranked in that turn's full ranking; a seeker turn
shows its feedback. Titles come from the catalog when one is at hand, else ids are shown.
"""

from __future__ import annotations

from collections.abc import Mapping

from rich.console import Console, Group
from rich.panel import Panel
from rich.text import Text

from environments.models import Episode, Item, Role

ROLE_STYLE = {Role.recommender: "bold cyan", Role.seeker: "bold green"}


def _name(item_id: str, items: Mapping[str, Item]) -> str:
    item = items.get(item_id)
    return f"{item.title} ({item_id})" if item else item_id


def render_episode(episode: Episode, items: Mapping[str, Item], console: Console) -> None:
    ranks = {r.turn: r for r in episode.rankings}
    target = _name(episode.target_item, items) if episode.target_item else "none"
    header = (f"episode {episode.id}  ·  target: {target}  ·  ended: {episode.termination.value}  ·  "
              f"{len(episode.turns)} turns  ·  seed {episode.seed}")
    blocks: list[Text | Group] = []
    recommender_turn = 0
    for turn in episode.turns:
        line = Text()
        line.append(f"{turn.role.value:>11}: ", style=ROLE_STYLE.get(turn.role, "bold"))
        line.append(turn.text)
        parts: list[Text] = [line]
        if turn.role is Role.recommender and not turn.metadata.get("opening"):
            recommender_turn += 1
            record = ranks.get(recommender_turn)
            if record is not None:
                parts.append(Text(f"{'':13}target rank {record.target_rank} of {record.n_candidates} "
                                  f"(turn {record.turn})", style="yellow"))
        for position, item_id in enumerate(turn.items_shown, start=1):
            mark = "  ← target" if item_id == episode.target_item else ""
            parts.append(Text(f"{'':13}{position}. {_name(item_id, items)}{mark}",
                              style="bold magenta" if mark else "dim"))
        for item_id, kind in turn.feedback.items():
            parts.append(Text(f"{'':13}feedback: {kind} {_name(item_id, items)}", style="italic"))
        blocks.append(Group(*parts))
    if episode.error:
        blocks.append(Text(f"error: {episode.error.strip().splitlines()[-1]}", style="bold red"))
    console.print(Panel(Group(*blocks), title=header, title_align="left"))

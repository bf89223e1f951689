"""Goal sets of the playlist protocol, and what a seeker may know about one.

A `PlaylistGoal` is one episode's hidden goal set (item ids, evaluator only) with its
opening request. Goals come from a music world's themes (`truth/themes.jsonl`) or from
an imported conversation dataset (`dialogues.jsonl`: a conversation's goal playlist and
its first user utterance, as CPCD gives them).

A target-biased seeker is told the goal's *theme*, never its ids: a `ThemeBrief` summarises
the goal items' metadata (the share of goal items with each genre, mood, era, artist...),
as a listener who knows what they want would describe it. On a world the summary reads
the true attributes (the seeker knows its taste better than the catalog shows it); on an
imported catalog, the attributes the catalog shows.

A target-free seeker is told nothing the goal items imply (`request_brief`): only what it
asked for (a world theme's constraints; on an imported conversation, nothing beyond the
request's words) and a general taste, a world listener's latent likes and dislikes chosen
per goal (`listener_taste`), so it judges tracks the way that listener would, not the way
the goal set happens to look.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from environments.catalog import Catalog
from environments.catalog.jsonl import read_jsonl
from environments.errors import CrsimError
from environments.models import AttributeValue, Episode, Role

BRIEF_MIN_SHARE = 0.2  # values held by fewer goal items are not part of the theme
BRIEF_SKIPS = ("album",)  # album names would all but list the tracks


@dataclass(frozen=True, slots=True)
class ThemeBrief:
    """What a seeker knows of its goal set: a name, its request, and value shares (no ids)."""

    name: str
    request: str
    values: Mapping[str, Mapping[str, float]]  # aspect -> value -> share of goal items having it
    size: int  # how many tracks the seeker wants
    taste: Mapping[str, Mapping[str, float]] = field(default_factory=dict)  # aspect -> value -> +like / -dislike

    def wanted(self, aspect: str, min_share: float = 0.5) -> list[str]:
        """The aspect's values at least `min_share` of the goal items have, most common first."""
        shares = self.values.get(aspect, {})
        return sorted((v for v, s in shares.items() if s >= min_share), key=lambda v: (-shares[v], v))


@dataclass(frozen=True, slots=True)
class PlaylistGoal:
    """One episode's hidden goal set, with the opening request and the seeker's brief."""

    goal_id: str
    name: str
    request: str
    items: tuple[str, ...]
    brief: ThemeBrief
    constraints: Mapping[str, str] = field(default_factory=dict)

    def log_view(self) -> dict[str, Any]:
        return {"goal_id": self.goal_id, "theme": self.name, "constraints": dict(self.constraints),
                "size": len(self.items), "brief": {a: dict(v) for a, v in self.brief.values.items()}}


def theme_brief(name: str, request: str, goal: Sequence[str], attributes: Mapping[str, Mapping[str, AttributeValue]],
                min_share: float = BRIEF_MIN_SHARE) -> ThemeBrief:
    """Value shares over the goal items' `attributes` (item id -> aspect -> value(s))."""
    counts: dict[str, Counter[str]] = {}
    for item_id in goal:
        for aspect, val in attributes.get(item_id, {}).items():
            if aspect in BRIEF_SKIPS:
                continue
            for v in ([val] if isinstance(val, str) else val):
                counts.setdefault(aspect, Counter())[v] += 1
    n = max(1, len(goal))
    values = {aspect: {v: round(c / n, 3) for v, c in sorted(counter.items(), key=lambda vc: (-vc[1], vc[0]))
                       if c / n >= min_share}
              for aspect, counter in sorted(counts.items())}
    return ThemeBrief(name, request, {a: v for a, v in values.items() if v}, len(goal))


def request_brief(goal: PlaylistGoal, taste: Mapping[str, Mapping[str, float]] | None = None) -> ThemeBrief:
    """What a target-free seeker knows: its request, its stated constraints (share 1.0 each:
    it asked for them), how long a playlist it wants, and its general taste; nothing drawn
    from the goal items."""
    values = {aspect: {value: 1.0} for aspect, value in sorted(goal.constraints.items()) if aspect != "occasion"}
    return ThemeBrief(goal.name, goal.request, values, len(goal.items), dict(taste or {}))


def listener_taste(users: Sequence[Any], goal: PlaylistGoal) -> dict[str, dict[str, float]]:
    """A world listener's latent taste (`UserTruth.weights`) for `goal`: the first user, from
    a position fixed by the goal id, whose dislikes do not contradict what the goal asks for
    (nobody asks for an 80s playlist while disliking the 80s). Empty without users."""
    if not users:
        return {}
    start = int(hashlib.sha256(goal.goal_id.encode("utf-8")).hexdigest()[:8], 16) % len(users)
    for offset in range(len(users)):
        weights = users[(start + offset) % len(users)].weights
        if all(weights.get(aspect, {}).get(value, 0.0) >= 0 for aspect, value in goal.constraints.items()):
            return {aspect: dict(values) for aspect, values in weights.items()}
    return {}


def world_goals(catalog: Catalog) -> list[PlaylistGoal]:
    """One goal per theme of a music world (empty if the catalog is not one)."""
    from environments.worlds import load_item_truth, load_themes

    if catalog.path is None:
        return []
    themes = load_themes(catalog.path)
    truth = load_item_truth(catalog.path)
    attributes = {item_id: row.attributes for item_id, row in truth.items()}
    return [PlaylistGoal(t.theme_id, t.name, t.request, tuple(t.goal),
                         theme_brief(t.name, t.request, t.goal, attributes), dict(t.constraints))
            for t in themes]


def dialogue_goals(catalog: Catalog, dialogues: Path) -> list[PlaylistGoal]:
    """One goal per logged conversation (`dialogues.jsonl`) with a goal set: its targets in
    the catalog, opened by its first seeker utterance. Conversations with fewer than two goal
    items in the catalog, or no seeker utterance, are skipped."""
    goals = []
    for episode in read_jsonl(dialogues, Episode):
        items = tuple(t for t in dict.fromkeys(episode.targets) if t in catalog.item_index)
        opening = next((t.text for t in episode.turns if t.role == Role.seeker and t.text.strip()), "")
        if len(items) < 2 or not opening:
            continue
        shown = {item_id: catalog.item(item_id).attributes for item_id in items}
        goals.append(PlaylistGoal(episode.id, f"conversation {episode.id}", opening, items,
                                  theme_brief("", opening, items, shown)))
    return goals


def load_goals(catalog: Catalog) -> list[PlaylistGoal]:
    """A music world's themes, else an imported catalog's conversations; a clear error if neither."""
    goals = world_goals(catalog)
    dialogues = catalog.path / "dialogues.jsonl" if catalog.path is not None else None
    if not goals and dialogues is not None and dialogues.is_file():
        goals = dialogue_goals(catalog, dialogues)
    if not goals:
        raise CrsimError(f"catalog '{catalog.manifest.name}' has no playlist goals: use the music world "
                         "(environment.world.domain=music) or a catalog with dialogues.jsonl whose conversations "
                         "have goal sets (e.g. `crsim data import cpcd`)")
    return goals


"""A seeker policy fitted on people's conversations: what a person does next, and how they react.

Fitted from a corpus's *training* dialogues (`crsim data policy DIR --split train_data`),
labelled by the transparent act labeller (`environments.acts.labeller`), and saved as a
JSON file a user can read and refit on their own corpus:

- `counts`: for each context — the recommender's last act (what it just did), alone and
  with the seeker's turn number — how often people's next turn was each act family
  (`FAMILIES`). `distribution()` turns them into probabilities, backing off from the turn
  number to the recommender's act alone when a cell has fewer than `min_count` turns. A
  turn that did two things (suggested items *and* asked what the seeker likes: a list on
  screen with a question, as crsim's recommenders do, and ReDial's people hardly ever did)
  has a combined context ("recommend+elicit"); with too few such turns in the corpus its
  distribution is the mean of its parts': people answered either.
  People leave by saying goodbye: the `close` family is when they stop.
- `reactions`: how people reacted to a suggested item (the corpus's own record of it:
  ReDial's questionnaire, never the labeller): the share they had seen, the share they
  liked, and how the share seen grows with the item's popularity (a logistic fit on the
  log of its mentions in the corpus). A seeker decides seen / not seen and like / dislike
  from these (`agents.seekers.decisions`).

Nothing else is fitted; the file names the corpus, the splits and the counts it came from.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, Field, ValidationError

from environments.acts.inventory import REACTIONS
from environments.errors import CrsimError
from environments.models import Episode, Role

POLICY_VERSION = 1
# What a seeker's turn does, one family per turn (the first that applies, in this order):
# reacting to a shown item comes before anything else it says in the same turn.
FAMILIES = ("react", "ask_shown", "name_liked", "preference", "ask_more", "close", "chitchat")
# The recommender's last turn, one context per turn (the first that applies).
CONTEXTS = ("recommend", "ask_seen", "elicit", "inform", "close", "other")
MIN_COUNT = 20
MAX_TURN = 6  # turn numbers above this share one cell


Versioned = TypeVar("Versioned", bound=BaseModel)


class PolicySource(BaseModel):
    corpus: str = Field(description="The corpus directory's name the policy was fitted on.")
    splits: list[str] = Field(description="The splits (profile.split) of the dialogues used; training only.")
    conversations: int
    seeker_turns: int
    labeller: str = Field(default="environments.acts.labeller", description="What labelled the turns.")


class ReactionRates(BaseModel):
    """People's reactions to suggested items, from the corpus's own record (questionnaire)."""

    items: int = Field(description="Suggested items with a recorded reaction.")
    seen_share: float = Field(description="Share of suggested items the person had seen.")
    like_share: float = Field(description="Share liked, of those with a like or a dislike.")
    seen_intercept: float = Field(description="Logistic model of seen: intercept.")
    seen_slope: float = Field(description="Logistic model of seen: slope on log(1 + mentions).")

    def seen_probability(self, mentions: float) -> float:
        z = self.seen_intercept + self.seen_slope * math.log1p(max(mentions, 0.0))
        return 1.0 / (1.0 + math.exp(-z))


class SeekerPolicy(BaseModel):
    version: int = POLICY_VERSION
    source: PolicySource
    families: list[str] = Field(default_factory=lambda: list(FAMILIES))
    contexts: list[str] = Field(default_factory=lambda: list(CONTEXTS))
    min_count: int = MIN_COUNT
    counts: dict[str, dict[str, int]] = Field(description="context or context@turn -> family -> turns")
    reactions: ReactionRates | None = None

    def distribution_for(self, contexts: Sequence[str], turn: int | None = None) -> dict[str, float]:
        """P(family | all the recommender's last turn did): the combined cell, or its parts' mean."""
        key = "+".join(contexts) or "other"
        if len(contexts) < 2 or sum(self.counts.get(key, {}).values()) >= self.min_count:
            return self.distribution(key, turn)
        parts = [self.distribution(c, turn) for c in contexts]
        return {f: sum(p[f] for p in parts) / len(parts) for f in self.families}

    def distribution(self, context: str, turn: int | None = None) -> dict[str, float]:
        """P(family | the recommender's last act, the seeker's turn number), add-one smoothed;
        without a turn, or with too few turns in its cell, P(family | the recommender's act)."""
        cell = self.counts.get(f"{context}@{min(turn, MAX_TURN)}", {}) if turn is not None else {}
        if sum(cell.values()) < self.min_count:
            cell = self.counts.get(context, {})
        total = sum(cell.values()) + len(self.families)
        return {f: (cell.get(f, 0) + 1) / total for f in self.families}


def mentions_by_item(items: Iterable[Any]) -> dict[str, float]:
    """Item id -> how many of the corpus's conversations mention it (`Item.extra["mentions"]`,
    0 when unknown): the popularity the reaction model's "seen" is fitted on."""
    return {item.id: float(item.extra.get("mentions", 0) or 0) for item in items}


def family_of(acts: Sequence[str]) -> str:
    """The one family of a seeker turn's acts."""
    found = set(acts)
    if found & (REACTIONS - {"ask_shown"}):
        return "react"
    if "request" in found:
        found.add("preference")
    return next((f for f in FAMILIES[1:] if f in found), "chitchat")


def context_of(acts: Sequence[str]) -> str:
    """The one context of a recommender turn's acts."""
    found = set(acts)
    if "recommend" in found:
        return "recommend"
    if "ask_seen" in found:
        return "ask_seen"
    if "elicit" in found:
        return "elicit"
    if found & {"explain", "answer"}:
        return "inform"
    return "close" if "close" in found else "other"


def contexts_of(acts: Sequence[str]) -> tuple[str, ...]:
    """Every context a recommender turn's acts make (in `CONTEXTS` order); ("other",) when none."""
    found = set(acts)
    parts = [c for c in ("recommend", "ask_seen", "elicit") if c in found]
    if not parts and found & {"explain", "answer"}:
        parts = ["inform"]
    return tuple(parts) or (context_of(acts),)


def seeker_turn_contexts(episode: Episode, acts: Sequence[Sequence[str]]) -> list[tuple[str, int, str]]:
    """(context, turn number, family) for each seeker turn after the person's first, as labelled."""
    out, context, turn = [], None, 0
    for t, labels in zip(episode.turns, acts):
        if t.role == Role.recommender:
            context = "+".join(contexts_of(labels)) if t.text.strip() else context
        elif t.role == Role.seeker and t.text.strip():
            turn += 1
            if turn > 1 and context is not None:
                out.append((context, turn, family_of(labels)))
    return out


def fit_policy(episodes: Iterable[Episode], titles: Mapping[str, str], mentions: Mapping[str, float], *,
               corpus: str, splits: Sequence[str]) -> SeekerPolicy:
    """Count people's next acts per context and fit the reaction rates (see the module docstring)."""
    from environments.acts.labeller import label_episode

    counts: dict[str, Counter[str]] = {}
    seen_rows: list[tuple[float, int]] = []
    liked = disliked = conversations = 0
    for episode in episodes:
        conversations += 1
        rows = seeker_turn_contexts(episode, label_episode(episode, titles=titles))
        for combined, turn, family in rows:
            keys = {combined, combined.split("+")[0]}  # its own cell, and its first part's (context_of's)
            for context in keys:
                counts.setdefault(context, Counter())[family] += 1
                counts.setdefault(f"{context}@{min(turn, MAX_TURN)}", Counter())[family] += 1
        suggested = {i for t in episode.turns if t.role == Role.recommender for i in t.items_shown}
        seen, unseen = set(episode.profile.get("seen", [])), set(episode.profile.get("unseen", []))
        seen_rows += [(mentions.get(i, 0.0), int(i in seen)) for i in suggested if i in seen | unseen]
        liked += len(suggested & set(episode.profile.get("liked", [])))
        disliked += len(suggested & set(episode.profile.get("disliked", [])))
    if not counts:
        raise CrsimError(f"{corpus}: no labelled seeker turns in split(s) {', '.join(splits)} to fit a policy on")
    source = PolicySource(corpus=corpus, splits=list(splits), conversations=conversations,
                          seeker_turns=sum(sum(c.values()) for k, c in counts.items() if "@" not in k and "+" not in k))
    return SeekerPolicy(source=source, counts={k: dict(sorted(c.items())) for k, c in sorted(counts.items())},
                        reactions=fit_reactions(seen_rows, liked, disliked))


def fit_reactions(seen_rows: Sequence[tuple[float, int]], liked: int, disliked: int) -> ReactionRates | None:
    """Seen share and its logistic fit on popularity; like share (None without questionnaire data)."""
    if len({y for _, y in seen_rows}) < 2 or liked + disliked == 0:
        return None
    from sklearn.linear_model import LogisticRegression

    x = [[math.log1p(m)] for m, _ in seen_rows]
    y = [label for _, label in seen_rows]
    model = LogisticRegression().fit(x, y)
    return ReactionRates(items=len(seen_rows), seen_share=round(sum(y) / len(y), 4),
                         like_share=round(liked / (liked + disliked), 4),
                         seen_intercept=round(float(model.intercept_[0]), 4),
                         seen_slope=round(float(model.coef_[0][0]), 4))


def load_policy(path: str | Path) -> SeekerPolicy:
    """Read a fitted policy file; a bad one is an error naming the file and the field."""
    return read_versioned(path, SeekerPolicy, POLICY_VERSION, "policy", "fit one with crsim data policy DIR --split SPLIT")


def read_versioned(path: str | Path, model: type[Versioned], version: int, what: str, make: str) -> Versioned:
    """A JSON file of `model` at `version` (or none given); a missing, unreadable, newer or
    malformed one is a `CrsimError` naming the file (and line or field), saying how to `make` one."""
    path = Path(path)
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise CrsimError(f"{path}: no such {what} file ({make})") from None
    except json.JSONDecodeError as error:
        raise CrsimError(f"{path}, line {error.lineno}: invalid JSON ({error.msg})") from None
    if isinstance(data, dict) and data.get("version") not in (None, version):
        raise CrsimError(f"{path}: {what} version {data.get('version')} is not one this crsim reads ({version})")
    try:
        return model.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        field = ".".join(str(p) for p in first["loc"])
        raise CrsimError(f"{path}: field '{field}': {first['msg']}") from None


def save_policy(policy: SeekerPolicy, path: str | Path) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(policy.model_dump(mode="json"), indent=1) + "\n")

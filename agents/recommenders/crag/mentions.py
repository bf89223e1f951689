"""CRAG's first stage: the items each utterance mentions, linked to the catalog, with attitudes.

One extraction per utterance (the language model, or offline fuzzy/BM25 finding), then
per name a fuzzy and a BM25 match; the names they disagree on go to one reflection call
per utterance. Results are kept per transcript index in the agent's memory, so a turn
is linked once per episode however many turns follow. Seeker feedback on items on screen
(like / dislike) counts as a mention too: it is the interactive form of saying so.

Collaborative retrieval uses the *positive* mentions: attitude ≥ `seeker_positive_at`
for the seeker and ≥ `other_positive_at` for anyone else (the paper counts the system's
neutral mentions as positive: recommenders rarely say how they feel about what they
suggest). Negative ones never enter it (CRAG §3.2.1) but are never recommended either.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from agents.recommenders.crag.context import CragContext
from agents.steps.crag.entity_linking import tie_rule
from agents.steps.crag.steps import ExtractInput, ReflectLinksInput
from environments.models import Role, Turn

FEEDBACK_ATTITUDE = {"like": 1, "dislike": -1}

Linked = tuple[tuple[int, int], ...]  # (catalog position, attitude) per mention of one turn


def own_words(turn: Turn) -> str:
    """A turn's text without the clarifying question CRAG asked in it (`asked` in its own
    metadata): the question's offered values are no mention of an item, yet titles match
    them ("Any favourite genre? Comedy, action?" linked the film "Comedy"; "Is there anything
    else that matters to you?" linked "Anything Else")."""
    asked = turn.metadata.get("asked") if turn.role == Role.recommender else None
    return turn.text.replace(asked, " ") if asked else turn.text


async def link_turn(ctx: CragContext, turn: Turn) -> Linked:
    """The catalog items one turn mentions, with attitudes (text, then feedback on shown items)."""
    found: list[tuple[int, int]] = []
    text = own_words(turn)
    if text.strip():
        extracted = await ctx.extract.run(ExtractInput(text, str(turn.role), ctx.catalog.item_noun))
        matches = [ctx.linker.candidates(m.name) for m in extracted.mentions]
        disagreements = [c for c in matches if not c.agree and (c.fuzzy or c.bm25)]
        decided: dict[str, str] = {}
        if disagreements:
            decisions = await ctx.reflect_links.run(ReflectLinksInput(
                text, disagreements, [i.title for i in ctx.catalog.items], ctx.catalog.item_noun))
            decided = {d.name: d.method for d, c in zip(decisions.decisions, disagreements)}
        for mention, match in zip(extracted.mentions, matches):
            if match.agree:
                position, _ = tie_rule(ctx.linker.index, match)
            else:
                method = decided.get(match.raw, "none")
                chosen = match.fuzzy if method == "fuzzy" else match.bm25 if method == "bm25" else None
                position = chosen.item if chosen is not None else None
            if position is not None:
                found.append((position, mention.attitude))
    index = ctx.catalog.item_index
    for item_id, kind in turn.feedback.items():
        if item_id in index and kind in FEEDBACK_ATTITUDE:
            found.append((index[item_id], FEEDBACK_ATTITUDE[kind]))
    return tuple(found)


async def link_new_turns(ctx: CragContext, dialogue: Sequence[Turn],
                         linked: Mapping[int, Linked]) -> dict[int, Linked]:
    """`linked` plus every turn of `dialogue` not linked yet (extraction calls run concurrently)."""
    new = [turn for turn in dialogue if turn.index not in linked]
    results = await asyncio.gather(*(link_turn(ctx, turn) for turn in new))
    return {**linked, **{turn.index: result for turn, result in zip(new, results)}}


@dataclass(frozen=True, slots=True)
class DialogueMentions:
    """Catalog positions mentioned so far: positive and negative ones (by latest mention), and all."""

    positives: list[int]
    negatives: list[int]
    mentioned: set[int]


def summarize(ctx: CragContext, dialogue: Sequence[Turn], linked: Mapping[int, Linked]) -> DialogueMentions:
    """An item's latest attitude wins (someone who liked it and then said it bored them did not like it)."""
    settings = ctx.settings
    attitude: dict[int, int] = {}
    for turn in dialogue:
        threshold = settings.seeker_positive_at if turn.role == Role.seeker else settings.other_positive_at
        for position, value in linked.get(turn.index, ()):
            attitude.pop(position, None)  # re-insert: order by latest mention
            attitude[position] = 1 if value >= threshold else -1 if value < 0 else 0
    return DialogueMentions([p for p, a in attitude.items() if a > 0], [p for p, a in attitude.items() if a < 0],
                            set(attitude))

"""A seeker's talk move worded by a language model: reacting to a shown item, asking about
one, naming an item it liked, taking in an answer (`agents.steps.seeker.talk` words the
same moves offline).

Which move a turn makes, and about which item, the seeker decides by rule at the rates
people show (`agents.seekers.target_biased.talk_move`); the model only words it. Left to
choose for itself in one prompt, Qwen2.5-1.5B never reacted to a shown item in 30 grounded
ReDial episodes and restated its opening wish turn after turn (63% of its turns were
refused as repeats and worded offline); people react in a third of their turns. A message
past `MAX_REPLY_WORDS` is refused too: told to say a shown place was not it, the model wrote
32 words ("I'm sorry, but Cellar on Orchard Row doesn't quite fit the description you
provided. I'm looking for ...").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field

from agents.steps.base import LanguageStep
from agents.steps.seeker.answer import MAX_REPLY_WORDS, TOO_LONG
from agents.steps.text import mentions, normalised, render_dialogue, said_before
from environments.models import Role, Turn


# The recommender's voice in a seeker's message: the 1.5B seeker, told to say an item was not
# for it, wrote "I don't think Place 11 is the right choice for you", "doesn't fit your
# budget", "doesn't quite fit the Italian theme you're looking for", "I'd recommend Diego's V
# instead", "I don't have any Korean restaurants in my list".
RECOMMENDER_VOICE = re.compile(
    r"\bi(?:'d| would)? (?:recommend|suggest)\b|\byour (?:budget|preferences?|criteria|taste|needs|request)\b"
    r"|\bfor you\b|\byou(?:'re| are) looking for\b|\bin my (?:list|database)\b|\bi (?:don't|do not) have any\b",
    re.IGNORECASE)


class SeekerLine(BaseModel):
    text: str = Field(max_length=200, description="Your chat message, in the first person.")


@dataclass(frozen=True, slots=True)
class MoveInput:
    """The move in words (`task`), what the message must name (any one of `refs`: "the
    second one" or a title), and the offline wording of the same move."""

    task: str
    offline_text: str
    dialogue: Sequence[Turn]
    item_noun: str
    target_title: str
    shown: Sequence[str] = ()
    refs: tuple[str, ...] = field(default_factory=tuple)


class SeekerMoveStep(LanguageStep[MoveInput, SeekerLine]):
    name = "seeker_move"
    prompt_name = "seeker_move"
    output_model = SeekerLine

    def __init__(self, llm: Any | None = None, role: str = "seeker"):
        super().__init__(llm, role)

    def offline(self, inputs: MoveInput) -> SeekerLine:
        return SeekerLine(text=inputs.offline_text)

    def prompt_variables(self, inputs: MoveInput) -> dict[str, Any]:
        return {"item_noun": inputs.item_noun, "target_title": inputs.target_title, "task": inputs.task,
                "dialogue": render_dialogue(inputs.dialogue),
                "shown": "\n".join(f"{n}. {title}" for n, title in enumerate(inputs.shown, 1)) or "(nothing)"}

    def check(self, output: BaseModel, inputs: MoveInput) -> str | None:
        """A message the seeker already sent, one in the recommender's voice, one that does not
        say which item it is about, one naming the seeker's own target, or a long one, is refused."""
        text = getattr(output, "text", "")
        if said_before(text, inputs.dialogue, Role.seeker):
            return "you sent this before; say something new"
        if RECOMMENDER_VOICE.search(text):
            return ("you are the one looking, not the recommender: speak for yourself ('for me', 'I want') "
                    "and recommend nothing")
        if inputs.refs and not any(mentions(text, ref) for ref in inputs.refs):
            return f"your message must say which item it is about: {' or '.join(repr(r) for r in inputs.refs)}"
        if inputs.target_title.strip() and mentions(text, inputs.target_title):
            return f"never name {inputs.target_title}"
        words = len(normalised(text).split())
        return TOO_LONG.format(n=words) if words > MAX_REPLY_WORDS else None

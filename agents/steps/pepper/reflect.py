"""A target-free seeker's reflection on what it is shown, and its reply (PEPPER §3.2-3.3).

**Reflected preferences** on the items shown in a turn: a seen item is judged by the user's
own review and rating; an unseen one by the general preferences (`preferences.py`) applied
to what its card says (listed attributes and description), so the reaction is consistent
with the user's taste but never with a target list the seeker does not have. **The reply**
then says one thing a turn, as people do.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pydantic import BaseModel, Field

from agents.steps.base import LanguageStep
from agents.steps.pepper.preferences import GeneralPreferences, Reaction, and_joined, card_text, weights_of
from agents.steps.seeker import talk
from agents.steps.seeker.answer import NOTHING_LEFT
from agents.steps.seeker.value_lexicon import Feature, ValueLexicon
from agents.steps.text import fill_form, pick, render_dialogue
from environments.base import ItemCard


# --- 3. reflected preferences on the shown items --------------------------------------------

class ItemReaction(BaseModel):
    item_id: str
    seen: bool = Field(description="Whether the user has seen the item before.")
    reaction: Reaction
    reason: str = Field(description="Why, in the user's words.")


class Reflection(BaseModel):
    reactions: list[ItemReaction] = Field(default_factory=list)


@dataclass(frozen=True, slots=True)
class ReflectInput:
    shown: Sequence[ItemCard]
    own_reviews: Mapping[str, tuple[float | None, str]]  # seen item id -> (rating, review)
    preferences: GeneralPreferences
    item_noun: str
    bars: tuple[float, float] = (0.3, -0.3)  # offline: liked at or above the first, disliked at or below the second
    seed: tuple[int, int] = (0, 0)  # (episode seed, turn): which wording a reaction takes


# Shown items are referred to as people do with a screen in front of them: by position
# ("the second one") or by a short title; the recommender gets the item from the feedback.
# The wordings are `agents.steps.seeker.talk`'s ({ref}: the item, {r}: why).
SEEN_LIKED = ("I've seen {ref} already and loved it.", "Oh, I watched {ref}, really enjoyed it.", "Loved {ref}!",
              "Saw {ref}, great one.", "{Ref} I've seen, so good.", "Already seen {ref}, loved it though.")
SEEN_DISLIKED = ("I've seen {ref}, honestly not for me.", "I watched {ref} before and didn't like it.",
                 "Saw {ref}, didn't enjoy it.", "{Ref} was a letdown for me.", "Not a fan of {ref}, seen it.")
SEEN_MIXED = ("I've seen {ref}; it was just okay.", "{Ref} was fine, nothing special.", "Seen {ref}, it's alright.")
UNSEEN_LIKED = ("{Ref} sounds promising: I love {r}.", "{Ref} looks right up my alley: {r}, that's my thing.",
                "Ooh, {r}? {Ref} could be good.", "{Ref} might work, I like {r}.", "I'm into {r}, so maybe {ref}.")
UNSEEN_DISLIKED = ("{Ref} isn't for me, I'm not into {r}.", "I'd skip {ref}; {r} puts me off.",
                   "Not {ref}, {r} isn't my thing.", "{R}? Not for me, so no to {ref}.",
                   "Hmm, {ref} is {r}, I'd rather not.")


class ReflectStep(LanguageStep[ReflectInput, Reflection]):
    name = "pepper_reflect"
    prompt_name = "pepper_reflect"
    output_model = Reflection

    def __init__(self, llm: object | None = None, role: str = "seeker", *, lexicon: ValueLexicon):
        super().__init__(llm, role)
        self.lexicon = lexicon

    def offline(self, inputs: ReflectInput) -> Reflection:
        weights = weights_of(inputs.preferences, self.lexicon)
        return Reflection(reactions=[self._react(card, n, inputs, weights) for n, card in enumerate(inputs.shown)])

    def _react(self, card: ItemCard, position: int, inputs: ReflectInput,
               weights: Mapping[Feature, float]) -> ItemReaction:
        keys = (*inputs.seed, card.id)
        ref = talk.refer(position, card.title, *keys, may_name=len(card.title.split()) <= 5)
        if card.id in inputs.own_reviews:
            rating, _ = inputs.own_reviews[card.id]
            reaction: Reaction = "unsure" if rating is None else "like" if rating >= 4 else (
                "dislike" if rating <= 2 else "unsure")
            forms = {"like": SEEN_LIKED, "dislike": SEEN_DISLIKED, "unsure": SEEN_MIXED}[reaction]
            reason = fill_form(pick(forms, *keys), ref=ref)
            return ItemReaction(item_id=card.id, seen=True, reaction=reaction, reason=reason)
        features = self.lexicon.card_features(card)
        contributions = sorted(((weights[f], f) for f in features if f in weights), key=lambda wf: (-abs(wf[0]), wf[1]))
        total = sum(w for w, _ in contributions)
        like_at, dislike_at = inputs.bars
        reaction = "like" if total >= like_at else "dislike" if total <= dislike_at else "unsure"
        sign = 1 if reaction == "like" else -1
        reasons = [f[1] for w, f in contributions if w * sign > 0][:2]
        if reasons and reaction != "unsure":
            text = fill_form(pick(UNSEEN_LIKED if reaction == "like" else UNSEEN_DISLIKED, *keys), ref=ref,
                             r=and_joined(reasons))
        else:
            say = {"like": talk.like_shown, "dislike": talk.pass_shown, "unsure": talk.unknown_shown}[reaction]
            text = say(ref, *keys)
        return ItemReaction(item_id=card.id, seen=False, reaction=reaction, reason=text)

    def prompt_variables(self, inputs: ReflectInput) -> dict[str, object]:
        shown = []
        for card in inputs.shown:
            line = f"- id {card.id}: {card_text(card)}"
            if card.id in inputs.own_reviews:
                rating, review = inputs.own_reviews[card.id]
                line += f"\n  You have seen it and rated it {rating if rating is not None else '?'}/5: \"{review}\""
            shown.append(line)
        return {"item_noun": inputs.item_noun, "preferences": inputs.preferences.narrative,
                "likes": ", ".join(inputs.preferences.likes) or "(none)",
                "dislikes": ", ".join(inputs.preferences.dislikes) or "(none)", "shown": "\n".join(shown)}

    def accept(self, output: Reflection, inputs: ReflectInput) -> Reflection:
        """Reactions only to items actually shown; seen-ness is the environment's fact."""
        shown = {c.id for c in inputs.shown}
        return Reflection(reactions=[r.model_copy(update={"seen": r.item_id in inputs.own_reviews})
                                     for r in output.reactions if r.item_id in shown])


# --- 4. the reply ------------------------------------------------------------------------

class PepperReply(BaseModel):
    reply: str = Field(description="The user's next message.")


class ShortReply(BaseModel):
    """What the model writes: at most 240 characters, which a grammar-constrained model cannot
    run past (asked for two to four sentences, a 1.5B model wrote ~40-word turns and one looped)."""

    reply: str = Field(max_length=240, description="The user's next message.")


@dataclass(frozen=True, slots=True)
class ReplyInput:
    dialogue: Sequence[object]
    preferences: GeneralPreferences
    answer: str             # what the user says about its preferences this turn (offline answer step)
    reflection: Reflection
    item_noun: str
    seed: int
    mention: str = ""       # a title of its own it names this turn ("I really enjoyed X."), if any
    move: str = ""          # the act the seeker's fitted policy chose (react, preference, ...); "": the step's own
    ask_about: str = ""     # move ask_shown: how it refers to the shown item it asks about


class PepperReplyStep(LanguageStep[ReplyInput, PepperReply]):
    name = "pepper_reply"
    prompt_name = "pepper_reply"
    output_model = PepperReply
    llm_output_model = ShortReply

    def offline(self, inputs: ReplyInput) -> PepperReply:
        """One thing a turn, as people do (6-7 words in ReDial): the strongest reaction to what
        is shown, else a liked title, else the preference answer; now and then a request for
        more. (Saying all of them every turn made 21-word turns that each ended in a question.)"""
        reactions = sorted(inputs.reflection.reactions, key=lambda r: (r.reaction == "unsure", not r.seen))
        turn = len(inputs.dialogue)
        answered = bool(inputs.answer) and inputs.answer not in NOTHING_LEFT
        if inputs.move:
            return PepperReply(reply=talk.styled(self._chosen(inputs, reactions, turn), inputs.seed, turn))
        if reactions and (not answered or zlib.crc32(f"{inputs.seed}-{turn}".encode()) % 3):
            said = reactions[0].reason
        elif inputs.mention and (not answered or turn % 2):
            said = talk.name_liked(inputs.mention, inputs.seed, turn)
        elif answered or turn % 2:
            said = inputs.answer
        else:  # nothing new to say or react to: ask for something else
            return PepperReply(reply=talk.styled(talk.ask_more(inputs.seed, turn), inputs.seed, turn))
        more = talk.ask_more(inputs.seed, turn) if zlib.crc32(f"{inputs.seed}-{turn}-more".encode()) % 5 == 0 else ""
        return PepperReply(reply=talk.styled(talk.join([said, more]), inputs.seed, turn))

    @staticmethod
    def _chosen(inputs: ReplyInput, reactions: Sequence[ItemReaction], turn: int) -> str:
        """The act the policy chose, in the seeker's words (the caller offers only acts it
        can make: a reaction when something is shown, a preference when one is left)."""
        keys = (inputs.seed, turn)
        if inputs.move == "react" and reactions:
            return reactions[0].reason
        if inputs.move == "preference" and inputs.answer:
            return inputs.answer
        if inputs.move == "name_liked" and inputs.mention:
            return talk.name_liked(inputs.mention, *keys)
        if inputs.move == "ask_shown" and inputs.ask_about:
            return talk.ask_shown(inputs.ask_about, *keys)
        if inputs.move == "close":
            return talk.close(*keys)
        if inputs.move == "ask_more":
            return talk.ask_more(*keys)
        return talk.acknowledge(*keys)

    def prompt_variables(self, inputs: ReplyInput) -> dict[str, object]:
        reactions = "\n".join(f"- {r.reason}" for r in inputs.reflection.reactions) or "(nothing shown yet)"
        mention = (f"Also say that you liked {inputs.mention}, one you watched before." if inputs.mention else "")
        return {"item_noun": inputs.item_noun, "preferences": inputs.preferences.narrative,
                "dialogue": render_dialogue(inputs.dialogue), "reactions": reactions, "mention": mention}

    def accept(self, output: ShortReply, inputs: ReplyInput) -> PepperReply:  # type: ignore[override]
        return PepperReply(reply=output.reply.strip())

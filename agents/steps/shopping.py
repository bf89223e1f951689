"""Language steps of the shopping protocol: seller and customer utterances, the state tracker.

- `SellerUtteranceStep`: one seller utterance for a move the seller agent has decided
  (ask one or two planned aspects with their hints, explain an aspect the customer asked
  about, recommend a product, say goodbye). Offline: phrase-bank templates.
- `CustomerUtteranceStep`: one customer utterance stating its stance on the asked aspects
  (wanted value / unwanted value / does not care), asking what an aspect means, opening
  with the category, or accepting the recommendation. Offline: phrase-bank templates.
- `TrackStateStep`: the dialogue state tracker (TRACER §3.3): which of the customer's
  features an utterance actually expressed. Offline it matches the aspect's name or the
  value as whole words (an optional stance must name the aspect); the LLM version reads
  the utterance. The customer reports the result to the environment, which reveals only
  those aspects to the search, so a feature the utterance forgot stays pending.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field

from agents.steps.base import LanguageStep
from agents.steps.shopping_phrases import fill, hint_list, join_sentences, stance_sentence
from agents.steps.text import display_name, mentions, render_dialogue
from environments.models import Turn


class Utterance(BaseModel):
    utterance: str = Field(description="What the speaker says next, nothing else.")


@dataclass(frozen=True, slots=True)
class AskedAspect:
    aspect: str
    hints: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SellerUtteranceInput:
    mode: str                                   # ask | explain | recommend | close
    dialogue: Sequence[Turn]
    category: str
    aspects: Sequence[AskedAspect] = ()         # ask / explain
    gloss: str = ""                              # explain: what the aspect means, if known
    product: str = ""                            # recommend: the product's title
    product_details: str = ""                    # recommend: its features, one line
    first: bool = False                          # the seller's first question
    bank: str = "a"
    key: tuple[Any, ...] = ()


@dataclass(frozen=True, slots=True)
class Stance:
    aspect: str
    interest: str                                # wanted | unwanted | optional
    value: str = ""


@dataclass(frozen=True, slots=True)
class CustomerUtteranceInput:
    mode: str                                   # open | answer | accept
    dialogue: Sequence[Turn]
    category: str
    stances: Sequence[Stance] = ()               # answer: what to state
    question: str | None = None                  # answer: an aspect to ask the meaning of
    product: str = ""                            # accept: the recommended product's title
    bank: str = "a"
    key: tuple[Any, ...] = ()


class SellerUtteranceStep(LanguageStep[SellerUtteranceInput, Utterance]):
    name = "shopping_seller"
    prompt_name = "shopping_seller"
    output_model = Utterance

    def __init__(self, llm: Any | None = None, role: str = "seller"):
        super().__init__(llm, role)

    def offline(self, inputs: SellerUtteranceInput) -> Utterance:
        b, key = inputs.bank, inputs.key
        if inputs.mode == "ask" and inputs.aspects:
            one = inputs.aspects[0]
            values = {"aspect": display_name(one.aspect), "hints": hint_list(one.hints)}
            if len(inputs.aspects) > 1:
                two = inputs.aspects[1]
                text = fill(b, "ask_two", key, **values, aspect2=display_name(two.aspect),
                            hints2=hint_list(two.hints))
            else:
                text = fill(b, "ask_first" if inputs.first else "ask", key, **values)
        elif inputs.mode == "explain" and inputs.aspects:
            one = inputs.aspects[0]
            kind = "explain" if inputs.gloss else "explain_plain"
            text = fill(b, kind, key, aspect=display_name(one.aspect), gloss=inputs.gloss, hints=hint_list(one.hints))
        elif inputs.mode == "recommend":
            text = fill(b, "recommend", key, title=inputs.product)
        else:
            text = fill(b, "close", key)
        return Utterance(utterance=text)

    def prompt_variables(self, inputs: SellerUtteranceInput) -> dict[str, Any]:
        aspects = "\n".join(f"- {display_name(a.aspect)} (typical values: {hint_list(a.hints)})"
                            for a in inputs.aspects) or "(none)"
        return {"mode": inputs.mode, "dialogue": render_dialogue(inputs.dialogue, limit=30),
                "category": inputs.category, "aspects": aspects, "gloss": inputs.gloss or "(none)",
                "product": inputs.product or "(none)", "product_details": inputs.product_details or "(none)"}


class CustomerUtteranceStep(LanguageStep[CustomerUtteranceInput, Utterance]):
    name = "shopping_customer"
    prompt_name = "shopping_customer"
    output_model = Utterance

    def __init__(self, llm: Any | None = None, role: str = "customer"):
        super().__init__(llm, role)

    def offline(self, inputs: CustomerUtteranceInput) -> Utterance:
        b, key = inputs.bank, inputs.key
        if inputs.mode == "open":
            return Utterance(utterance=fill(b, "opening", key, noun=inputs.category))
        if inputs.mode == "accept":
            return Utterance(utterance=fill(b, "accept", key))
        sentences = [stance_sentence(b, s.aspect, s.interest, s.value, key) for s in inputs.stances]
        if inputs.question:
            sentences.append(fill(b, "question", (*key, inputs.question), aspect=display_name(inputs.question)))
        return Utterance(utterance=join_sentences(b, sentences, key))

    def prompt_variables(self, inputs: CustomerUtteranceInput) -> dict[str, Any]:
        lines = []
        for s in inputs.stances:
            if s.interest == "wanted":
                lines.append(f"- {display_name(s.aspect)}: you want {s.value}")
            elif s.interest == "unwanted":
                lines.append(f"- {display_name(s.aspect)}: you do NOT want {s.value}")
            else:
                lines.append(f"- {display_name(s.aspect)}: you do not care")
        return {"mode": inputs.mode, "dialogue": render_dialogue(inputs.dialogue, limit=30),
                "category": inputs.category, "stances": "\n".join(lines) or "(none)",
                "question": display_name(inputs.question) if inputs.question else "(none)",
                "product": inputs.product or "(none)"}


class MentionedFeatures(BaseModel):
    mentioned: list[str] = Field(default_factory=list, description="Aspects whose stance the utterance states.")


@dataclass(frozen=True, slots=True)
class TrackInput:
    utterance: str
    remaining: Sequence[Stance] = field(default_factory=tuple)


def stance_stated(utterance: str, stance: Stance) -> bool:
    """Offline tracker rule: the aspect's name, or the value for a wanted/unwanted stance."""
    if mentions(utterance, display_name(stance.aspect)):
        return True
    return stance.interest != "optional" and bool(stance.value) and mentions(utterance, stance.value)


class TrackStateStep(LanguageStep[TrackInput, MentionedFeatures]):
    name = "shopping_track_state"
    prompt_name = "shopping_track_state"
    output_model = MentionedFeatures

    def __init__(self, llm: Any | None = None, role: str = "customer"):
        super().__init__(llm, role)

    def offline(self, inputs: TrackInput) -> MentionedFeatures:
        return MentionedFeatures(mentioned=[s.aspect for s in inputs.remaining if stance_stated(inputs.utterance, s)])

    def prompt_variables(self, inputs: TrackInput) -> dict[str, Any]:
        lines = [f"- {s.aspect}: " + (f"{s.interest} {s.value}" if s.value else "does not care")
                 for s in inputs.remaining]
        return {"utterance": inputs.utterance, "remaining": "\n".join(lines) or "(none)"}

    def accept(self, output: MentionedFeatures, inputs: TrackInput) -> MentionedFeatures:
        known = {s.aspect for s in inputs.remaining}
        return MentionedFeatures(mentioned=[a for a in output.mentioned if a in known])

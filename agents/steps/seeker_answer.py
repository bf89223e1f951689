"""Answer the recommender's question as a target-biased seeker, one preference at a time.

The seeker's profile is a list of facts (the target's attributes, sentences of the
summary of its positive reviews, sentences of its own review). Offline, the seeker picks
the not-yet-stated fact most similar to the question (sentence embeddings) and phrases
it; if nothing in its profile is close enough, it says it has no preference — the same
behaviour the LLM prompt asks for.

A question that names an aspect outright ("Do you have a preference for the setting?")
is answered from that aspect's attribute fact whatever the embedding says: the seeker
plainly knows the answer, and short "aspect: value" facts can fall under the similarity
threshold. Otherwise facts are tried in tiers: the target's attributes first (exact, and what an aspect
question asks about), the free-text facts only when no attribute answers the question.
Besides preferring the reliable facts, this keeps the per-episode cost low: attribute
facts repeat across episodes and hit the encoder's memo, while review sentences are new
each episode and cost a model call (~20 ms) that most episodes then never make.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from pydantic import BaseModel, Field

from agents.steps.base import LanguageStep
from agents.steps.text import display_name, mentions, pick, render_dialogue
from environments.models import Turn

NO_PREFERENCE = (
    "I don't really have a preference about that.",
    "No strong feelings on that one.",
    "That doesn't matter much to me.",
)


@dataclass(frozen=True, slots=True)
class Fact:
    """One thing the seeker knows and may say: matched by `match_text`, said as `utterance`."""

    key: str
    match_text: str
    utterance: str
    aspect: str | None = None


class SeekerAnswer(BaseModel):
    answer: str = Field(description="The seeker's reply, one preference at most.")
    has_preference: bool = Field(description="False when the profile says nothing about the question.")
    fact_key: str | None = Field(default=None, description="Which profile fact was used, if known.")


@dataclass(frozen=True, slots=True)
class AnswerInput:
    question: str
    facts: Sequence[Fact]
    stated: frozenset[str]
    dialogue: Sequence[Turn]
    item_noun: str
    target_title: str
    open_question: bool = False


class SeekerAnswerStep(LanguageStep[AnswerInput, SeekerAnswer]):
    name = "seeker_answer"
    prompt_name = "seeker_answer"
    output_model = SeekerAnswer

    def __init__(self, llm: object | None = None, role: str = "seeker", *, encoder: object | None = None,
                 threshold: float = 0.35):
        super().__init__(llm, role)
        self.encoder = encoder
        self.threshold = threshold

    def offline(self, inputs: AnswerInput) -> SeekerAnswer:
        open_facts = [f for f in inputs.facts if f.key not in inputs.stated]
        named = [f for f in open_facts if f.aspect and mentions(inputs.question, display_name(f.aspect))]
        if named:
            fact = named[0]
            return SeekerAnswer(answer=fact.utterance, has_preference=True, fact_key=fact.key)
        if open_facts and self.encoder is not None:
            question = self.encoder.encode([inputs.question])[0]
            tiers = ([f for f in open_facts if f.aspect is not None], [f for f in open_facts if f.aspect is None])
            for tier in tiers:
                if not tier:
                    continue
                similarity = self.encoder.encode([f.match_text for f in tier]) @ question
                best = int(np.argmax(similarity))
                if inputs.open_question or similarity[best] >= self.threshold:
                    fact = tier[best]
                    return SeekerAnswer(answer=fact.utterance, has_preference=True, fact_key=fact.key)
        return SeekerAnswer(answer=pick(NO_PREFERENCE, inputs.question), has_preference=False)

    def prompt_variables(self, inputs: AnswerInput) -> dict[str, object]:
        return {
            "item_noun": inputs.item_noun,
            "facts": "\n".join(f"- {f.match_text}" for f in inputs.facts) or "(nothing)",
            "stated": "\n".join(f"- {f.match_text}" for f in inputs.facts if f.key in inputs.stated) or "(nothing yet)",
            "dialogue": render_dialogue(inputs.dialogue),
            "question": inputs.question,
            "target_title": inputs.target_title,
        }

"""Ask a clarification question: which aspect should the recommender ask about next?

Offline, the recommender asks about the aspect whose values best split its current top
candidates (highest entropy of the value distribution): the answer to that question
prunes the most of what it is currently unsure between. Aspects already asked are not
asked again.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from pydantic import BaseModel, Field

from agents.steps.base import LanguageStep
from agents.steps.text import display_name, pick, render_dialogue
from environments.models import Item, Turn

QUESTION_FORMS = (
    "What {aspect} are you looking for?",
    "Do you have a preference for the {aspect}?",
    "Which {aspect} would suit you best?",
    "How about the {aspect}: anything in particular?",
)
OPEN_QUESTION = "Is there anything else that matters to you?"


class ClarifyingQuestion(BaseModel):
    question: str = Field(description="One short question to the seeker.")
    aspect: str | None = Field(default=None, description="The attribute it asks about, if any.")


@dataclass(frozen=True, slots=True)
class ClarifyInput:
    dialogue: Sequence[Turn]
    candidates: Sequence[Item]
    asked_aspects: Sequence[str]
    item_noun: str
    turn: int
    aspects: Sequence[str] = field(default_factory=tuple)


def normalized_values(item: Item, aspect: str) -> tuple[str, ...]:
    """An item's values for an aspect, lower-cased; a missing aspect counts as one value."""
    value = item.attributes.get(aspect)
    values = value if isinstance(value, list) else [value if value is not None else "<none>"]
    return tuple(str(v).lower() for v in values)


def entropy_of(value_lists: Sequence[tuple[str, ...]]) -> float:
    counts = Counter(v for values in value_lists for v in values)
    total = sum(counts.values())
    if total == 0:
        return 0.0
    return -sum((c / total) * math.log2(c / total) for c in counts.values())


def value_entropy(candidates: Sequence[Item], aspect: str) -> float:
    """Shannon entropy (bits) of an aspect's values over candidates; missing counts as a value."""
    return entropy_of([normalized_values(item, aspect) for item in candidates])


class ClarifyStep(LanguageStep[ClarifyInput, ClarifyingQuestion]):
    name = "clarify_question"
    prompt_name = "clarify_question"
    output_model = ClarifyingQuestion

    def __init__(self, llm: object | None = None, role: str = "recommender"):
        super().__init__(llm, role)
        # Items are immutable during a run; normalising their values once keeps this step
        # off the per-turn profile (it runs every turn over the top candidates).
        self._values: dict[tuple[str, str], tuple[str, ...]] = {}

    def _values_of(self, item: Item, aspect: str) -> tuple[str, ...]:
        key = (item.id, aspect)
        cached = self._values.get(key)
        if cached is None:
            cached = self._values[key] = normalized_values(item, aspect)
        return cached

    def offline(self, inputs: ClarifyInput) -> ClarifyingQuestion:
        asked = {a for a in inputs.asked_aspects if a}
        aspects = inputs.aspects or sorted({k for item in inputs.candidates for k in item.attributes})
        best, best_entropy = None, 1e-9
        for aspect in aspects:
            if aspect in asked:
                continue
            entropy = entropy_of([self._values_of(item, aspect) for item in inputs.candidates])
            if entropy > best_entropy:
                best, best_entropy = aspect, entropy
        if best is None:
            return ClarifyingQuestion(question=OPEN_QUESTION, aspect=None)
        form = pick(QUESTION_FORMS, best, inputs.turn)
        return ClarifyingQuestion(question=form.format(aspect=display_name(best)), aspect=best)

    def prompt_variables(self, inputs: ClarifyInput) -> dict[str, object]:
        lines = []
        for item in inputs.candidates[:10]:
            attrs = "; ".join(f"{display_name(k)}: {v if isinstance(v, str) else ', '.join(v)}"
                              for k, v in item.attributes.items())
            lines.append(f"- {item.title} ({attrs})")
        return {
            "item_noun": inputs.item_noun,
            "dialogue": render_dialogue(inputs.dialogue),
            "candidates": "\n".join(lines) or "(none)",
            "asked_aspects": ", ".join(a for a in inputs.asked_aspects if a) or "(none)",
            "aspects": ", ".join(inputs.aspects) or "(any)",
        }

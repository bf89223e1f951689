"""Single-pass generation (TRACER §3.3): the whole dialogue from the full plan in one step.

Input: the category, the planned features in order (aspect, the customer's stance and
value, the hints the seller had at that point), and the product to recommend. Offline,
the dialogue is assembled from the same utterance steps the interactive agents use
(`SellerUtteranceStep`/`CustomerUtteranceStep` offline, same phrase banks): the
customer opens, the seller asks one or two aspects of a plan step at a time, the
customer answers — sometimes first asking what an aspect means, which the seller
explains — then the seller recommends, the customer accepts and the seller closes. The
LLM version writes it in one request; roles are re-labelled to alternate (customer
first) and an answer with fewer than four turns falls back to the offline script.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
import functools
from typing import Any

import numpy as np
from pydantic import BaseModel, Field, create_model

from agents.steps.base import LanguageStep
from agents.steps.text import display_name
from agents.steps.tracer.dialogue import (
    AskedAspect, CustomerUtteranceInput, CustomerUtteranceStep, SellerUtteranceInput, SellerUtteranceStep, Stance,
)
from agents.steps.tracer.phrases import hint_list


class ScriptTurn(BaseModel):
    role: str = Field(description="customer or seller")
    text: str = Field(description="The utterance.")
    asked: list[str] = Field(default_factory=list, description="Aspects a seller turn asks or a customer turn answers.")
    recommend: bool = Field(default=False, description="This seller turn recommends the product.")


class Script(BaseModel):
    turns: list[ScriptTurn] = Field(description="The whole conversation, customer first.")


class ScriptLine(BaseModel):
    role: str = Field(description="customer or seller")
    text: str = Field(max_length=200, description="The utterance.")


@functools.lru_cache(maxsize=32)
def script_up_to(turn_count: int) -> type[BaseModel]:
    """What the model writes: roles and lines only (`accept` re-labels the roles and marks
    the recommendation itself), at most `turn_count` lines of 200 characters, which a
    grammar-constrained model cannot run past."""
    return create_model("Script", turns=(list[ScriptLine], Field(
        max_length=turn_count, description="The whole conversation, customer first.")))


@dataclass(frozen=True, slots=True)
class PlannedFeature:
    aspect: str
    interest: str
    value: str
    hints: tuple[str, ...]
    step: int


@dataclass(frozen=True, slots=True)
class SinglePassInput:
    category: str
    features: Sequence[PlannedFeature]
    product: str
    glosses: dict[str, str]
    seed: int
    bank: str = "a"
    question_rate: float = 0.1
    pair_rate: float = 0.5


class SinglePassStep(LanguageStep[SinglePassInput, Script]):
    name = "shopping_single_pass"
    prompt_name = "shopping_single_pass"
    output_model = Script
    # A dialogue of up to 16 lines in JSON: 256 tokens cut 9 of 20 Qwen2.5-1.5B answers off.
    completion_tokens = 1024

    def __init__(self, llm: Any | None = None, role: str = "seller"):
        super().__init__(llm, role)
        self.seller = SellerUtteranceStep(None)
        self.customer = CustomerUtteranceStep(None)

    def offline(self, inputs: SinglePassInput) -> Script:
        rng = np.random.default_rng([inputs.seed, 17])
        b = inputs.bank
        turns: list[ScriptTurn] = []

        def say(role: str, text: str, asked: Sequence[str] = (), recommend: bool = False) -> None:
            turns.append(ScriptTurn(role=role, text=text, asked=list(asked), recommend=recommend))

        key = (inputs.seed, 0)
        say("customer", self.customer.offline(CustomerUtteranceInput("open", (), inputs.category, bank=b,
                                                                     key=key)).utterance)
        groups: list[list[PlannedFeature]] = []
        for step in sorted({f.step for f in inputs.features}):
            todo = sorted((f for f in inputs.features if f.step == step), key=lambda f: f.aspect in inputs.glosses)
            while todo:
                take = 2 if len(todo) > 1 and rng.random() < inputs.pair_rate else 1
                groups.append(todo[:take])
                todo = todo[take:]
        for n, group in enumerate(groups, start=1):
            key = (inputs.seed, n)
            asked = [AskedAspect(f.aspect, f.hints) for f in group]
            say("seller", self.seller.offline(SellerUtteranceInput(
                "ask", (), inputs.category, asked, first=n == 1, bank=b, key=key)).utterance, [f.aspect for f in group])
            question = next((f for f in group if rng.random() < inputs.question_rate), None)
            if question is not None:
                say("customer", self.customer.offline(CustomerUtteranceInput(
                    "answer", (), inputs.category, (), question.aspect, bank=b, key=key)).utterance)
                say("seller", self.seller.offline(SellerUtteranceInput(
                    "explain", (), inputs.category, [AskedAspect(question.aspect, question.hints)],
                    gloss=inputs.glosses.get(question.aspect, ""), bank=b, key=key)).utterance, [question.aspect])
            stances = tuple(Stance(f.aspect, f.interest, f.value) for f in group)
            say("customer", self.customer.offline(CustomerUtteranceInput(
                "answer", (), inputs.category, stances, bank=b, key=(inputs.seed, n, 1))).utterance,
                [f.aspect for f in group])
        key = (inputs.seed, len(groups) + 1)
        say("seller", self.seller.offline(SellerUtteranceInput("recommend", (), inputs.category, product=inputs.product,
                                                               bank=b, key=key)).utterance, recommend=True)
        say("customer", self.customer.offline(CustomerUtteranceInput("accept", (), inputs.category, bank=b,
                                                                     key=key)).utterance)
        say("seller", self.seller.offline(SellerUtteranceInput("close", (), inputs.category, bank=b,
                                                               key=key)).utterance)
        return Script(turns=turns)

    def prompt_variables(self, inputs: SinglePassInput) -> dict[str, Any]:
        lines = []
        for f in inputs.features:
            stance = {"wanted": f"wants {f.value}", "unwanted": f"does NOT want {f.value}"}.get(f.interest,
                                                                                           "does not care")
            lines.append(f"- {display_name(f.aspect)}: {stance}; typical values: {hint_list(f.hints)}")
        return {"category": inputs.category, "features": "\n".join(lines) or "(none)", "product": inputs.product}

    def answer_model(self, inputs: SinglePassInput) -> type[BaseModel]:
        """Room for the customer's opening, a question and an answer per planned feature, the
        recommendation, the acceptance and the close, and two lines to spare."""
        return script_up_to(2 * len(inputs.features) + 6)

    def accept(self, output: Any, inputs: SinglePassInput) -> Script:
        said = [t.text.strip() for t in output.turns if t.text.strip()]
        if len(said) < 4:
            return self.offline(inputs)
        turns = [ScriptTurn(role="customer" if k % 2 == 0 else "seller", text=text) for k, text in enumerate(said)]
        title = inputs.product.lower()
        pick = next((k for k, t in enumerate(turns) if t.role == "seller" and title in t.text.lower()), None)
        if pick is None:
            pick = max(k for k, t in enumerate(turns) if t.role == "seller")
        turns[pick] = turns[pick].model_copy(update={"recommend": True})
        return Script(turns=turns)

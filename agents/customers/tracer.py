"""The TRACER customer: opens with the category, answers per its preference, sometimes asks.

Graph `speak -> track`. `speak` decides and words the move: the opening names the
category; an answer states the customer's stance on each aspect the seller asked about
(wanted value, unwanted value, or "does not care" — also for an aspect its product lacks);
with probability `question_rate` per asked aspect (once per aspect) it asks what the
aspect means instead of answering it; a recommendation on screen is accepted. `track`
runs the dialogue state tracker over the utterance and reports the aspects it actually
expressed (`CustomerMove.expressed`), which is what the environment reveals to search.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from agents.base import GraphAgent, TurnState
from agents.steps.tracer.dialogue import (
    CustomerUtteranceInput, CustomerUtteranceStep, Stance, TrackInput, TrackStateStep,
)
from environments.models import Role
from environments.shopping.views import CustomerMove, CustomerView


@dataclass(frozen=True)
class CustomerContext:
    step: CustomerUtteranceStep
    tracker: TrackStateStep
    bank: str
    question_rate: float


class CustomerState(TurnState, total=False):
    questioned: list[str]
    stances: list[Stance]
    draft: CustomerMove


async def speak(state: CustomerState, runtime: Runtime[CustomerContext]) -> dict[str, Any]:
    view: CustomerView = state["observation"]
    ctx = runtime.context
    questioned = list(state.get("questioned", []))
    key = (view.episode_seed, view.turn)
    category = view.preference.category
    if not any(t.role == Role.seller.value for t in view.dialogue) and not view.asked:
        said = await ctx.step.run(CustomerUtteranceInput("open", view.dialogue, category, bank=ctx.bank, key=key))
        return {"draft": CustomerMove(said.utterance, metadata={"mode": "open"}), "stances": []}
    if view.recommended is not None:
        said = await ctx.step.run(CustomerUtteranceInput("accept", view.dialogue, category,
                                                         product=view.recommended.title, bank=ctx.bank, key=key))
        return {"draft": CustomerMove(said.utterance, accept=True, metadata={"mode": "accept"}), "stances": []}
    rng = np.random.default_rng([view.episode_seed, view.turn, 13])
    question = next((a for a in view.asked if a not in questioned and rng.random() < ctx.question_rate), None)
    if question is not None:
        questioned.append(question)
    stances = []
    for aspect in view.asked:
        if aspect != question:
            feature = view.preference.feature(aspect)
            stances.append(Stance(aspect, feature.interest.value, feature.value))
    said = await ctx.step.run(CustomerUtteranceInput("answer", view.dialogue, category, tuple(stances), question,
                                                     bank=ctx.bank, key=key))
    notes = {"mode": "answer", "stances": {s.aspect: s.interest for s in stances}}
    return {"draft": CustomerMove(said.utterance, question=question, metadata=notes), "stances": stances,
            "questioned": questioned}


async def track(state: CustomerState, runtime: Runtime[CustomerContext]) -> dict[str, Any]:
    draft: CustomerMove = state["draft"]
    stances = state.get("stances", [])
    if not stances:
        return {"action": draft}
    found = await runtime.context.tracker.run(TrackInput(draft.text, tuple(stances)))
    return {"action": CustomerMove(draft.text, tuple(found.mentioned), draft.question, draft.accept, draft.metadata)}


def build_graph() -> Any:
    graph = StateGraph(CustomerState, context_schema=CustomerContext)
    graph.add_node("speak", speak)
    graph.add_node("track", track)
    graph.add_edge(START, "speak")
    graph.add_edge("speak", "track")
    graph.add_edge("track", END)
    return graph.compile(name="tracer_customer")


def resume(observation: Any, moves: Any) -> dict[str, Any]:
    return {"questioned": [t.metadata["question"] for t in moves if t.metadata.get("question")]}


def build(llm: Any = None, phrase_bank: str = "a", question_rate: float = 0.1) -> GraphAgent[CustomerContext]:
    """Hydra factory (`conf/customer/tracer.yaml`)."""
    from agents.steps.tracer.phrases import bank

    bank(phrase_bank)
    context = CustomerContext(CustomerUtteranceStep(llm, Role.customer.value),
                              TrackStateStep(llm, Role.customer.value), phrase_bank, question_rate)
    return GraphAgent(Role.customer, build_graph(), context, memory_keys=("questioned",), resume=resume)

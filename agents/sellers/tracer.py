"""The TRACER seller: asks the planned aspects with hints, explains, recommends, closes.

Graph `decide -> speak`. `decide` picks the move from what the seller may see (the
planned aspects and their hints, never the customer's values): answer a question the
customer just asked about a pending aspect (once per aspect), else recommend one of the
converged results (drawn with the episode's seed, as the paper samples from the final
results), else ask one or two pending aspects — reordered so plain aspects (colour,
brand) come before ones that need explaining — and, once a recommendation is out, close.
`speak` words the move with `SellerUtteranceStep` (offline templates or an LLM).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from agents.base import GraphAgent, TurnState
from agents.steps.text import display_name, mentions
from agents.steps.tracer.dialogue import AskedAspect, SellerUtteranceInput, SellerUtteranceStep
from environments.catalog import Catalog
from environments.models import Role
from environments.shopping.views import SellerMove, SellerView

_QUESTION_END = re.compile(r"[^.!?]*\?")


@dataclass(frozen=True)
class SellerContext:
    step: SellerUtteranceStep
    bank: str
    pair_rate: float


class SellerState(TurnState, total=False):
    explained: list[str]
    plan: dict[str, Any]


def asked_about(view: SellerView, explained: list[str]) -> str | None:
    """A pending aspect the customer's last utterance asks about (a question naming it)."""
    last = next((t for t in reversed(view.dialogue) if t.role == Role.customer.value), None)
    if last is None or "?" not in last.text:
        return None
    questions = " ".join(_QUESTION_END.findall(last.text))
    for hint in view.pending:
        if hint.aspect not in explained and mentions(questions, display_name(hint.aspect)):
            return hint.aspect
    return None


async def decide(state: SellerState, runtime: Runtime[SellerContext]) -> dict[str, Any]:
    view: SellerView = state["observation"]
    explained = list(state.get("explained", []))
    rng = np.random.default_rng([view.episode_seed, view.turn, 11])
    hints = {h.aspect: h for h in view.pending}
    if view.recommended is not None:
        return {"plan": {"mode": "close"}}
    question = asked_about(view, explained)
    if question is not None:
        explained.append(question)
        return {"plan": {"mode": "explain", "asked": [question]}, "explained": explained}
    if view.converged and view.candidates:
        card = view.candidates[int(rng.integers(len(view.candidates)))]
        return {"plan": {"mode": "recommend", "recommend": card.id}}
    if not hints:
        return {"plan": {"mode": "wait"}}
    order = sorted(hints, key=lambda a: (a in view.glosses, list(hints).index(a)))
    count = 2 if len(order) > 1 and rng.random() < runtime.context.pair_rate else 1
    return {"plan": {"mode": "ask", "asked": order[:count]}}


async def speak(state: SellerState, runtime: Runtime[SellerContext]) -> dict[str, Any]:
    view: SellerView = state["observation"]
    plan = state["plan"]
    ctx = runtime.context
    mode = plan["mode"]
    first = not any(t.role == Role.seller.value for t in view.dialogue)
    hints = {h.aspect: h for h in view.pending}
    aspects = [AskedAspect(a, hints[a].hints if a in hints else ()) for a in plan.get("asked", [])]
    product = details = ""
    if mode == "recommend":
        card = next(c for c in view.candidates if c.id == plan["recommend"])
        product = card.title
        details = "; ".join(f"{display_name(k)}: {v if isinstance(v, str) else ', '.join(v)}"
                            for k, v in card.attributes.items())
    if mode == "wait":
        text = "Let me look through what we have."
    else:
        gloss = view.glosses.get(aspects[0].aspect, "") if mode == "explain" else ""
        said = await ctx.step.run(SellerUtteranceInput(
            mode=mode, dialogue=view.dialogue, category=view.category, aspects=aspects, gloss=gloss, product=product,
            product_details=details, first=first, bank=ctx.bank, key=(view.episode_seed, view.turn)))
        text = said.utterance
    move = SellerMove(text, tuple(plan.get("asked", ())), plan.get("recommend"), mode == "close",
                      {"mode": mode})
    return {"action": move}


def build_graph() -> Any:
    graph = StateGraph(SellerState, context_schema=SellerContext)
    graph.add_node("decide", decide)
    graph.add_node("speak", speak)
    graph.add_edge(START, "decide")
    graph.add_edge("decide", "speak")
    graph.add_edge("speak", END)
    return graph.compile(name="tracer_seller")


def resume(observation: Any, moves: Any) -> dict[str, Any]:
    return {"explained": [a for t in moves if t.metadata.get("mode") == "explain" for a in t.metadata.get("asked", [])]}


def build(catalog: Catalog | None = None, llm: Any = None, phrase_bank: str = "a",
          pair_rate: float = 0.5) -> GraphAgent[SellerContext]:
    """Hydra factory (`conf/seller/tracer.yaml`)."""
    from agents.steps.tracer.phrases import bank

    bank(phrase_bank)  # an unknown bank is an error now, not in the first episode
    context = SellerContext(SellerUtteranceStep(llm, Role.seller.value), phrase_bank, pair_rate)
    return GraphAgent(Role.seller, build_graph(), context, memory_keys=("explained",), resume=resume)

"""The shared shape of the baseline recommenders: score the catalog, then ask a question.

Graph per turn: `retrieve` (score every candidate against the seeker's utterances so far)
→ `clarify` (look at the current top candidates and ask the question that best splits
them) → END. Popularity, BM25 and dense recommenders differ only in the scorer.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from agents.base import GraphAgent, TurnState
from agents.steps.clarify import ClarifyInput, ClarifyStep
from environments.base import Recommendation, RecommenderObservation
from environments.catalog import Catalog
from environments.models import Role, Turn

Scorer = Callable[[Sequence[str]], np.ndarray]  # seeker utterances so far -> one score per item


class RecommenderState(TurnState, total=False):
    scores: np.ndarray
    asked_aspects: list[str]


@dataclass(frozen=True, slots=True)
class RetrievalContext:
    catalog: Catalog
    scorer: Scorer
    clarify: ClarifyStep
    question_pool: int


def seeker_utterances(observation: RecommenderObservation) -> list[str]:
    """Everything the seeker has said so far, one entry per turn."""
    return [turn.text for turn in observation.dialogue if turn.role == Role.seeker]


async def retrieve(state: RecommenderState, runtime: Runtime[RetrievalContext]) -> dict[str, Any]:
    scores = runtime.context.scorer(seeker_utterances(state["observation"]))
    return {"scores": scores}


async def clarify(state: RecommenderState, runtime: Runtime[RetrievalContext]) -> dict[str, Any]:
    ctx, obs, scores = runtime.context, state["observation"], state["scores"]
    pool = min(ctx.question_pool, scores.shape[0])
    top = np.argpartition(-scores, pool - 1)[:pool]
    candidates = [ctx.catalog.items[i] for i in top[np.argsort(-scores[top], kind="stable")]]
    asked = list(state.get("asked_aspects", []))
    question = await ctx.clarify.run(ClarifyInput(obs.dialogue, candidates, asked, obs.item_noun,
                                                  obs.turn, tuple(ctx.catalog.aspects)))
    action = Recommendation(question=question.question, scores=scores, metadata={"aspect": question.aspect})
    return {"action": action, "asked_aspects": asked + ([question.aspect] if question.aspect else [])}


def build_graph(name: str) -> Any:
    graph = StateGraph(RecommenderState, context_schema=RetrievalContext)
    graph.add_node("retrieve", retrieve)
    graph.add_node("clarify", clarify)
    graph.add_edge(START, "retrieve")
    graph.add_edge("retrieve", "clarify")
    graph.add_edge("clarify", END)
    return graph.compile(name=name)


def asked_in(observation: Any, moves: Sequence[Turn]) -> dict[str, Any]:
    """Memory rebuilt from earlier recommender moves: the aspects they asked about."""
    return {"asked_aspects": [t.metadata["aspect"] for t in moves if t.metadata.get("aspect")]}


def retrieval_recommender(name: str, catalog: Catalog, scorer: Scorer, llm: Any | None = None,
                          question_pool: int = 50) -> GraphAgent[RetrievalContext]:
    context = RetrievalContext(catalog, scorer, ClarifyStep(llm, "recommender"), question_pool)
    return GraphAgent(Role.recommender, build_graph(name), context, memory_keys=("asked_aspects",),
                      resume=asked_in)

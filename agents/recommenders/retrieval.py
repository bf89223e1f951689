"""The shared shape of the baseline recommenders: score the catalog, then ask a question.

Graph per turn: `retrieve` (score every candidate against the seeker's utterances so far)
→ `clarify` (look at the current top candidates and ask the question that best splits
them; when the seeker just asked about an item shown, answer that first, see
`agents/steps/recommender/item_answer.py`) → END. Popularity, BM25 and dense recommenders differ only in the scorer.

Questions are about the catalog's attributes and about the aspects its reviews talk
about, mined once per catalog view when the recommender is built (cached on disk; see
`environments/search/aspects.py`); a catalog without attributes is asked about those
alone. The view is the recommender's own, so the seekers' withheld reviews are not mined.
Items the seeker has already liked or disliked are not shown again.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from agents.base import GraphAgent, TurnState
from agents.steps.recommender.clarify import ClarifyInput, ClarifyStep
from agents.steps.recommender.item_answer import ItemAnswerStep, answer_first
from environments.base import Recommendation, RecommenderObservation
from environments.catalog import Catalog
from environments.models import Role, Turn
from environments.search.aspects import AspectVocabulary

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
    mined: AspectVocabulary | None = None
    answer: ItemAnswerStep | None = None  # answers a question about a shown item before asking


def seeker_utterances(observation: RecommenderObservation) -> list[str]:
    """Everything the seeker has said so far, one entry per turn."""
    return [turn.text for turn in observation.dialogue if turn.role == Role.seeker]


def judged_items(observation: RecommenderObservation) -> set[str]:
    """Items the seeker has already given feedback on (liked or disliked when shown)."""
    return {item_id for turn in observation.dialogue if turn.role == Role.seeker for item_id in turn.feedback}


async def retrieve(state: RecommenderState, runtime: Runtime[RetrievalContext]) -> dict[str, Any]:
    """Score every item; items the seeker already judged go last: showing them again tells
    the seeker nothing new (a seeker that gives no feedback is unaffected)."""
    observation = state["observation"]
    scores = np.asarray(runtime.context.scorer(seeker_utterances(observation)), dtype=float)
    return {"scores": demote_judged(scores, runtime.context.catalog, observation)}


def demote_judged(scores: np.ndarray, catalog: Catalog, observation: RecommenderObservation) -> np.ndarray:
    """`scores` with the items the seeker already judged below every other item."""
    judged = [catalog.item_index[i] for i in judged_items(observation) if i in catalog.item_index]
    if not judged:
        return scores
    scores = np.asarray(scores, dtype=float).copy()
    scores[judged] = scores.min() - 1.0
    return scores


async def clarify(state: RecommenderState, runtime: Runtime[RetrievalContext]) -> dict[str, Any]:
    ctx, obs, scores = runtime.context, state["observation"], state["scores"]
    pool = min(ctx.question_pool, scores.shape[0])
    top = np.argpartition(-scores, pool - 1)[:pool]
    candidates = [ctx.catalog.items[i] for i in top[np.argsort(-scores[top], kind="stable")]]
    asked = list(state.get("asked_aspects", []))
    question = await ctx.clarify.run(ClarifyInput(obs.dialogue, candidates, asked, obs.item_noun,
                                                  obs.turn, tuple(ctx.catalog.aspects), ctx.mined))
    metadata: dict[str, Any] = {"aspect": question.aspect}
    text = await answer_first(ctx.answer, obs, ctx.catalog, question.question, metadata)
    action = Recommendation(question=text, scores=scores, metadata=metadata)
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


def mined_aspects(catalog: Catalog, max_aspects: int, embedding_model: str | None = None,
                  cache_dir: str | None = None) -> AspectVocabulary | None:
    """The review aspects of the recommender's catalog view (None when `max_aspects` is 0)."""
    if max_aspects <= 0 or not catalog.reviews:
        return None
    from environments.search.aspects import MinerSettings, mine_aspects
    from environments.search.encoders import get_encoder

    return mine_aspects(catalog, encoder=get_encoder(embedding_model), settings=MinerSettings(max_aspects=max_aspects),
                        cache_dir=cache_dir)


def retrieval_recommender(name: str, catalog: Catalog, scorer: Scorer, llm: Any | None = None,
                          question_pool: int = 50, *, review_aspects: int = 30, embedding_model: str | None = None,
                          cache_dir: str | None = None) -> GraphAgent[RetrievalContext]:
    """The retrieve → clarify agent; `review_aspects` mined aspects join the attributes (0: none)."""
    mined = mined_aspects(catalog, review_aspects, embedding_model, cache_dir)
    context = RetrievalContext(catalog, scorer, ClarifyStep(llm, "recommender", catalog_items=catalog.items),
                               question_pool, mined,
                               ItemAnswerStep(llm, "recommender"))
    return GraphAgent(Role.recommender, build_graph(name), context, memory_keys=("asked_aspects",),
                      resume=asked_in)

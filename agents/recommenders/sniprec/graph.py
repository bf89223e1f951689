"""SnipRec's turn: parse → expand → retrieve → validate → score → clarify.

- **parse**: each seeker answer not yet read becomes query snippets (`QuerySnippetStep`,
  given the question it answers; intents already known are not repeated), or, in the
  baselines (`extract_queries=False`), the raw answer is one query with a positive sign.
- **expand**: paraphrase / support / opposite per query snippet, each a switch.
- **retrieve**: the top `k` index texts per query by cosine (faiss).
- **validate**: per query, its texts ranked by how well they support it and those below
  the threshold dropped. `validator=cheap` (offline default): the cosine between the
  *content* of query and text (the "This restaurant has" frame removed: with it, any two
  negated snippets are ~0.6 apart, and a threshold keeps whatever was retrieved), with a
  text that contradicts the query by negation ("does not have X" for "has X") scored 0;
  `cosine`: the same on whole-text cosines; `none`: the whole-text cosine alone.
- **score**: signed reciprocal-rank fusion, SCORE(i) += sgn(q) / (kappa + rank) for the
  best-ranked text of item i in each query's group, accumulated over turns in memory;
  items no text reached keep their score.
- **clarify**: the shared clarification step over the current top candidates.

The memory is the accumulated score vector and the query snippets read so far; a fresh
memory (an agent taking over half-way) reads every earlier answer again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from agents.recommenders.retrieval import RecommenderState, clarify, demote_judged
from agents.steps.recommender.clarify import ClarifyStep
from agents.steps.recommender.item_answer import ItemAnswerStep
from agents.steps.sniprec.snippets import (
    ExpandInput, ExpandStep, QuerySnippet, QuerySnippetInput, QuerySnippetStep, Transformation, expanded,
)
from agents.steps.text import singular
from environments.catalog import Catalog
from environments.models import Role
from environments.search.aspects import AspectVocabulary
from environments.search.snippets import Hits, SnippetIndex

Validator = Literal["cheap", "cosine", "none"]


@dataclass(frozen=True, slots=True)
class SnipRecSettings:
    extract_queries: bool = True
    expand: tuple[Transformation, ...] = ()
    k: int = 500
    validator: Validator = "cheap"
    threshold: float = 0.5       # validator score below which a retrieved text is dropped
    kappa: float = 60.0
    question_pool: int = 50


@dataclass(frozen=True, slots=True)
class SnipRecContext:
    catalog: Catalog
    index: SnippetIndex
    settings: SnipRecSettings
    query_step: QuerySnippetStep
    expand_step: ExpandStep
    clarify: ClarifyStep
    question_pool: int
    mined: AspectVocabulary | None = None
    answer: ItemAnswerStep | None = None  # the shared `clarify` node answers item questions with it


class SnipRecState(RecommenderState, total=False):
    snippet_scores: np.ndarray
    read_turns: int
    intents: list[str]
    queries: list[QuerySnippet]


async def parse(state: SnipRecState, runtime: Runtime[SnipRecContext]) -> dict[str, Any]:
    """Query snippets of every seeker answer not read yet (normally just the latest)."""
    ctx = runtime.context
    dialogue = state["observation"].dialogue
    read = state.get("read_turns", 0)
    intents = list(state.get("intents", []))
    queries: list[QuerySnippet] = []
    question = ""
    for position, turn in enumerate(dialogue):
        if turn.role != Role.seeker:
            question = turn.text
            continue
        if position < read or not turn.text.strip():
            continue
        if ctx.settings.extract_queries:
            found = await ctx.query_step.run(QuerySnippetInput(question, turn.text, singular(ctx.catalog.item_noun), intents))
            new = found.snippets
        else:
            new = [QuerySnippet(text=turn.text)]
        queries.extend(new)
        intents.extend(q.text for q in new)
    return {"queries": queries, "intents": intents, "read_turns": len(dialogue)}


async def expand(state: SnipRecState, runtime: Runtime[SnipRecContext]) -> dict[str, Any]:
    ctx = runtime.context
    queries = state["queries"]
    if not ctx.settings.expand or not queries:
        return {}
    neighbours: list[list[tuple[str, float]]] = [[] for _ in queries]
    if "support" in ctx.settings.expand:  # offline support: the best retrieved text that is not a copy
        hits = ctx.index.search(ctx.index.embed([q.text for q in queries]), 5)
        neighbours = [[(ctx.index.texts[t], float(s)) for t, s in zip(row_t, row_s) if t >= 0]
                      for row_t, row_s in zip(hits.texts, hits.scores)]
    out: list[QuerySnippet] = []
    for query, near in zip(queries, neighbours):
        expansion = await ctx.expand_step.run(ExpandInput(query, singular(ctx.catalog.item_noun), ctx.settings.expand, near))
        out.extend(expanded(query, expansion))
    return {"queries": out}


def validated_groups(index: SnippetIndex, queries: list[QuerySnippet], settings: SnipRecSettings,
                     check_negation: bool) -> list[np.ndarray]:
    """Per query, the retrieved texts that pass validation, best first."""
    if not queries:
        return []
    return validate(index, queries, index.search(index.embed([q.text for q in queries]), settings.k), settings,
                    check_negation)


def validate(index: SnippetIndex, queries: list[QuerySnippet], hits: Hits, settings: SnipRecSettings,
             check_negation: bool) -> list[np.ndarray]:
    """Per query, its retrieved texts (`hits`) ranked by support, those below the threshold dropped."""
    retrieved = [texts[texts >= 0] for texts in hits.texts]
    if settings.validator == "cheap":
        supports = index.content_support([q.text for q in queries], retrieved)
    else:
        supports = [cosines[texts >= 0] for texts, cosines in zip(hits.texts, hits.scores)]
    groups = []
    for query, texts, support in zip(queries, retrieved, supports):
        support = support.astype(np.float32)
        if settings.validator != "none" and check_negation:
            support = np.where(index.negated[texts] != query.negated, 0.0, support)
        order = np.argsort(-support, kind="stable")
        groups.append(texts[order][support[order] >= settings.threshold])
    return groups


def rrf_update(scores: np.ndarray, index: SnippetIndex, groups: list[np.ndarray], signs: list[int],
               kappa: float) -> np.ndarray:
    """Signed reciprocal-rank fusion of each group into `scores` (a copy is returned)."""
    scores = scores.copy()
    for texts, sign in zip(groups, signs):
        seen = np.zeros(index.n_items, dtype=bool)
        for rank, text in enumerate(texts, start=1):
            items = index.items_of(int(text))
            fresh = items[~seen[items]]
            if len(fresh):
                scores[fresh] += sign / (kappa + rank)
                seen[fresh] = True
    return scores


async def retrieve_and_score(state: SnipRecState, runtime: Runtime[SnipRecContext]) -> dict[str, Any]:
    ctx = runtime.context
    queries = state["queries"]
    base = state.get("snippet_scores")
    if base is None:
        base = np.zeros(len(ctx.catalog.items), dtype=np.float64)
    groups = validated_groups(ctx.index, queries, ctx.settings, check_negation=ctx.settings.extract_queries)
    accumulated = rrf_update(base, ctx.index, groups, [q.sign for q in queries], ctx.settings.kappa)
    scores = demote_judged(accumulated, ctx.catalog, state["observation"])
    return {"snippet_scores": accumulated, "scores": scores}


async def explain(state: SnipRecState, runtime: Runtime[SnipRecContext]) -> dict[str, Any]:
    """The turn's query snippets go into the move's notes (what a reader of the transcript wants)."""
    action = state["action"]
    action.metadata["query_snippets"] = [[q.text, q.sign] for q in state.get("queries", [])]
    return {"action": action}


def build_graph(name: str) -> Any:
    graph = StateGraph(SnipRecState, context_schema=SnipRecContext)
    for node in (parse, expand, retrieve_and_score, clarify, explain):
        graph.add_node(node.__name__, node)
    graph.add_edge(START, "parse")
    graph.add_edge("parse", "expand")
    graph.add_edge("expand", "retrieve_and_score")
    graph.add_edge("retrieve_and_score", "clarify")
    graph.add_edge("clarify", "explain")
    graph.add_edge("explain", END)
    return graph.compile(name=name)

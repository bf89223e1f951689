"""The CRAG turn as a LangGraph graph: link → retrieve → reflect → recommend → rerank → respond.

- `link`: new utterances' mentions, linked (see `mentions.py`);
- `retrieve`: with no positive mention, first guess liked items (§3.4); then EASE scores
  of the positive mentions (or content scores, for Naive-RAG), top-K unmentioned
  candidates with a positive score;
- `reflect`: context-aware reflection keeps the retrieved items that fit the dialogue;
- `recommend`: M titles from the dialogue plus the kept items, linked back; offline, the
  dialogue's embedding relevance plus affinity to the liked items ranks the candidates,
  merged with the kept items by reciprocal-rank fusion (`rag`) or after them (`rec`,
  the order-copying behaviour the paper observed in LLMs given candidates);
  with `generate=false` the retriever's scores rank every candidate instead (EASE; training
  popularity orders items it scores equally);
- `rerank`: every recommendation scored −2 … 2, re-sorted stably; offline, the score is
  the quintile of the mean catalog percentile of context relevance, affinity to the liked
  items and (when retrieval ran) the collaborative score — the evidence a model reflecting
  on the list would weigh;
- `respond`: a clarification question and the ranking, the question preceded by an answer
  when the seeker just asked about an item shown (`agents/steps/recommender/item_answer.py`). Items
  already mentioned are never recommended; only the observation's candidates are.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from agents.base import TurnState
from agents.recommenders.crag.context import CragContext
from agents.recommenders.crag.mentions import DialogueMentions, Linked, link_new_turns, summarize
from agents.steps.crag.relevance import percentiles
from agents.steps.crag.steps import ItemsInDialogue, RecommendInput, rerank
from agents.steps.recommender.clarify import ClarifyInput
from agents.steps.recommender.item_answer import answer_first
from environments.base import Recommendation

RRF_K = 60  # reciprocal-rank fusion constant (Cormack et al.)


class CragState(TurnState, total=False):
    linked: dict[int, Linked]  # memory: transcript index -> its mentions
    asked_aspects: list[str]  # memory
    mentions: DialogueMentions
    allowed: np.ndarray  # catalog positions the environment lets us rank, minus mentioned items
    anchors: list[int]  # positive mentions, or the guessed liked items
    inferred: bool
    retrieval_scores: np.ndarray  # EASE (or, for Naive-RAG, content) score of every catalog item
    retrieved: list[int]
    kept: list[int]
    generated: list[int]
    final: list[int]


def _top(scores: np.ndarray, allowed: np.ndarray, k: int, positive_only: bool = False) -> list[int]:
    """The best `k` allowed positions by score (ties by catalog order)."""
    values = scores[allowed]
    order = np.argsort(-values, kind="stable")[:k]
    if positive_only:
        order = order[values[order] > 0]
    return allowed[order].tolist()


async def link(state: CragState, runtime: Runtime[CragContext]) -> dict[str, Any]:
    ctx, obs = runtime.context, state["observation"]
    linked = await link_new_turns(ctx, obs.dialogue, state.get("linked", {}))
    mentions = summarize(ctx, obs.dialogue, linked)
    candidates = ctx.positions(obs.candidates)
    allowed = candidates[~np.isin(candidates, list(mentions.mentioned))] if mentions.mentioned else candidates
    return {"linked": linked, "mentions": mentions, "allowed": allowed, "anchors": list(mentions.positives),
            "inferred": False, "retrieved": [], "kept": []}


async def retrieve(state: CragState, runtime: Runtime[CragContext]) -> dict[str, Any]:
    ctx, obs, settings = runtime.context, state["observation"], runtime.context.settings
    if not settings.retrieves:
        return {}
    anchors, inferred = state["anchors"], False
    if not anchors and settings.infer_when_no_mentions and settings.generate:
        allowed = state["allowed"]
        offline = [ctx.catalog.items[p].title
                   for p in _top(ctx.relevance.context(obs.dialogue), allowed, settings.infer_count)]
        guessed = await ctx.infer.run(RecommendInput(obs.dialogue, (), "none", settings.infer_count,
                                                     ctx.catalog.item_noun, offline))
        anchors = list(dict.fromkeys(p for p in map(ctx.title_position, guessed.titles) if p is not None))
        inferred = True
    if ctx.ease is not None:
        scores = ctx.ease.scores(anchors)
    else:  # Naive-RAG: catalog entries similar to what was said
        scores = ctx.content.scores([t.text for t in obs.dialogue if t.text.strip()])  # type: ignore[union-attr]
    retrieved = _top(scores, state["allowed"], settings.k, positive_only=True) if anchors or ctx.ease is None else []
    return {"anchors": anchors, "inferred": inferred, "retrieval_scores": scores, "retrieved": retrieved,
            "kept": retrieved}


async def reflect(state: CragState, runtime: Runtime[CragContext]) -> dict[str, Any]:
    ctx, obs = runtime.context, state["observation"]
    retrieved = state.get("retrieved", [])
    if not ctx.settings.reflect or not retrieved:
        return {}
    fit = percentiles(ctx.relevance.context(obs.dialogue))
    judged = await ctx.context_reflect.run(ItemsInDialogue(
        obs.dialogue, [ctx.catalog.items[p] for p in retrieved], [float(fit[p]) for p in retrieved],
        ctx.catalog.item_noun, ctx.settings.relevance_threshold))
    return {"kept": [p for p, j in zip(retrieved, judged.judgements) if j.relevant]}


def offline_list(ctx: CragContext, state: CragState) -> list[int]:
    """The offline stand-in for the model's list: content ranking, fused with the kept items."""
    obs, settings, kept, allowed = state["observation"], ctx.settings, state.get("kept", []), state["allowed"]
    base = _top(ctx.relevance.combined(obs.dialogue, state["anchors"]), allowed, len(allowed))
    if not kept:
        return base[: settings.m]
    if settings.prompt == "rec" and ctx.content is None:
        return list(dict.fromkeys([*kept, *base]))[: settings.m]
    fused: dict[int, float] = {}
    for ranking in (base, kept):
        for rank, position in enumerate(ranking, start=1):
            fused[position] = fused.get(position, 0.0) + 1.0 / (RRF_K + rank)
    return sorted(fused, key=lambda p: -fused[p])[: settings.m]


async def recommend(state: CragState, runtime: Runtime[CragContext]) -> dict[str, Any]:
    ctx, obs, settings = runtime.context, state["observation"], runtime.context.settings
    if not settings.generate:
        return {}
    items, kept = ctx.catalog.items, state.get("kept", [])
    guidance = "docs" if ctx.content is not None else settings.prompt
    answer = await ctx.recommend.run(RecommendInput(
        obs.dialogue, [items[p].title for p in kept], guidance, settings.m, ctx.catalog.item_noun,
        [items[p].title for p in offline_list(ctx, state)]))
    allowed = set(state["allowed"].tolist())
    linked = (ctx.title_position(title) for title in answer.titles)
    generated = list(dict.fromkeys(p for p in linked if p is not None and p in allowed))[: settings.m]
    return {"generated": generated, "final": generated}


async def rerank_node(state: CragState, runtime: Runtime[CragContext]) -> dict[str, Any]:
    ctx, obs = runtime.context, state["observation"]
    generated = state.get("generated", [])
    if not (ctx.settings.rerank and ctx.settings.generate and generated):
        return {}
    fit = ctx.relevance.fit(obs.dialogue, state["anchors"])
    collaborative = state.get("retrieval_scores") if ctx.ease is not None else None
    if collaborative is not None and state["anchors"]:  # offline judge: all three signals, equally weighted
        fit = (2.0 * fit + percentiles(collaborative)) / 3.0
    ratings = await ctx.rerank.run(ItemsInDialogue(
        obs.dialogue, [ctx.catalog.items[p] for p in generated], [float(fit[p]) for p in generated],
        ctx.catalog.item_noun))
    return {"final": rerank(generated, ratings)}


async def respond(state: CragState, runtime: Runtime[CragContext]) -> dict[str, Any]:
    ctx, obs, settings = runtime.context, state["observation"], runtime.context.settings
    items, ids = ctx.catalog.items, ctx.catalog.item_ids
    candidates = ctx.positions(obs.candidates)
    if settings.generate:
        final = state.get("final", [])
        ranking: dict[str, Any] = {"ranked_ids": [ids[p] for p in final]}
    else:
        # EASE score first, training popularity among equal scores (e.g. before anything was named)
        popularity = ctx.ease.popularity  # type: ignore[union-attr]
        order = np.lexsort((-popularity, -state["retrieval_scores"]))
        scores = np.full(len(ids), -np.inf)
        allowed = np.zeros(len(ids), dtype=bool)
        allowed[state["allowed"]] = True
        kept = order[allowed[order]]
        scores[kept] = np.arange(len(kept), 0, -1, dtype=np.float64)
        final = kept[: settings.question_pool].tolist()
        ranking = {"scores": scores[candidates]}
    question, aspect, asked = "", None, list(state.get("asked_aspects", []))
    if settings.ask:
        top = [items[p] for p in final[: settings.question_pool]]
        named = tuple(items[p] for p in sorted(state["mentions"].mentioned))
        clarified = await ctx.clarify.run(ClarifyInput(obs.dialogue, top, asked, obs.item_noun, obs.turn,
                                                       tuple(ctx.catalog.aspects), named=named))
        question, aspect = clarified.question, clarified.aspect
        asked += [aspect] if aspect else []
    metadata = {"aspect": aspect, "asked": question, "positives": [ids[p] for p in state["anchors"]],
                "inferred": state.get("inferred", False), "retrieved": [ids[p] for p in state.get("retrieved", [])],
                "kept": [ids[p] for p in state.get("kept", [])],
                "generated": [ids[p] for p in state.get("generated", [])]}
    question = await answer_first(ctx.answer, obs, ctx.catalog, question, metadata)
    return {"action": Recommendation(question=question, metadata=metadata, **ranking), "asked_aspects": asked}


def build_graph(name: str = "crag") -> Any:
    graph = StateGraph(CragState, context_schema=CragContext)
    nodes = [("link", link), ("retrieve", retrieve), ("reflect", reflect), ("recommend", recommend),
             ("rerank", rerank_node), ("respond", respond)]
    previous = START
    for node_name, node in nodes:
        graph.add_node(node_name, node)
        graph.add_edge(previous, node_name)
        previous = node_name
    graph.add_edge(previous, END)
    return graph.compile(name=name)

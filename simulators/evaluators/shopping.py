"""TRACER's downstream tasks on logged shopping dialogues: CQG and CPR (paper §5).

Both read the dialogue up to the seller's recommendation (`search_turns`: after it, the
transcript names the final product).

- CQG (conversational query generation): extract [category, wanted, unwanted, optional]
  from the dialogue (`agents.steps.tracer.query.ExtractQueryStep`: rule-based
  offline, or an LLM) and compare it with the gold query — the category and the features
  the dialogue's plan discussed, with the customer's true stance (from the episode's
  profile; the extractor never sees it). Scores: exact-match F1 over query items
  (`category`, `+aspect=value`, `-aspect=value`, `?aspect`) and ROUGE-1/2/L between the
  linearised queries. The baseline uses the full dialogue as the query.
- CPR (conversational product ranking): rank every catalog product for the dialogue's
  final product with BM25 (and dense retrieval) from (a) the full dialogue, (b) the
  extracted query, and for reference (c) the gold query; queries are the category plus
  the wanted "aspect value" phrases (BM25 cannot express "not"), as the paper ranks with
  the desired features; a structured query also says what the customer does *not*
  want and which category, so products of another category or holding an unwanted value
  are ranked below all others (the product search engine's filters, applied as a
  demotion so every product keeps a rank). The full dialogue has no such structure.
  Ties are broken with the episode's seed. MRR and Hits@1/10/100,
  for two notions of relevance: the `final product` the seller recommended (strict: one
  relevant product, chosen at random from the converged results, so even a perfect query
  only ranks it among its equally fitting siblings), and the `result family` — every
  product satisfying the customer's wanted and unwanted features, i.e. the converged
  results, which the paper treats as "close enough" to the customer's interest (rank of
  the first family member). `relevance` picks the one the summary lines report.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from agents.steps.text import display_name
from agents.steps.tracer.query import AspectValue, ExtractQueryStep, QueryInput, ShoppingQuery
from environments.errors import CrsimError
from environments.models import Episode, TerminationReason, Turn
from environments.ranking import rank_targets, tie_broken_order
from environments.shopping.preference import Preference
from simulators.evaluators.rouge import rouge_scores

HITS = (1, 10, 100)
CQG_COLUMNS = ["F1", "R-1", "R-2", "R-L"]
CPR_COLUMNS = ["MRR", *(f"H@{k}" for k in HITS)]
RELEVANCE = ("result family", "final product")
DEMOTION = 1e6  # larger than any BM25 or cosine score


def gold_query(episode: Episode) -> ShoppingQuery:
    """The category and every planned (discussed) feature with the customer's true stance."""
    preference = episode.profile["preference"]
    query = ShoppingQuery(category=preference["category"])
    for step in episode.profile.get("plan", []):
        for aspect in step["aspects"]:
            if aspect["interest"] == "optional":
                query.optional.append(aspect["aspect"])
            else:
                getattr(query, aspect["interest"]).append(AspectValue(aspect=aspect["aspect"], value=aspect["value"]))
    return query


def query_items(query: ShoppingQuery) -> set[str]:
    items = {f"category={query.category.strip().lower()}"} if query.category else set()
    items |= {f"+{v.aspect}={v.value.lower()}" for v in query.wanted}
    items |= {f"-{v.aspect}={v.value.lower()}" for v in query.unwanted}
    return items | {f"?{a}" for a in query.optional}


def linearise(query: ShoppingQuery) -> str:
    def pairs(values: list[AspectValue]) -> str:
        return "; ".join(f"{display_name(v.aspect)} {v.value}" for v in sorted(values, key=lambda v: v.aspect))
    return (f"category {query.category}. wanted: {pairs(query.wanted)}. unwanted: {pairs(query.unwanted)}. "
            f"optional: {', '.join(display_name(a) for a in sorted(query.optional))}.")


def ranking_text(query: ShoppingQuery) -> str:
    return " ".join([query.category, *(f"{display_name(v.aspect)} {v.value}" for v in query.wanted)])


def exact_f1(predicted: set[str], gold: set[str]) -> float:
    overlap = len(predicted & gold)
    if not overlap:
        return 0.0
    precision, recall = overlap / len(predicted), overlap / len(gold)
    return 2 * precision * recall / (precision + recall)


def search_turns(episode: Episode) -> list[Turn]:
    """The conversation up to the seller's recommendation: the part a product ranker gets.

    From the recommendation on, the dialogue names the final product by its title, which
    would turn ranking into reading the answer off the transcript."""
    shown = next((k for k, t in enumerate(episode.turns) if t.items_shown), len(episode.turns))
    return list(episode.turns[:shown])


def dialogue_text(turns: Sequence[Turn]) -> str:
    return "\n".join(f"{t.role}: {t.text}" for t in turns)


class ShoppingEvaluator:
    """`evaluators:` entry of `experiment=tracer` (see the module docstring)."""

    name = "tracer"

    def __init__(self, llm: Any = None, dense: bool = True, embedding_model: str | None = None,
                 cache_dir: str | None = None, concurrency: int = 8, encoder: Any = None,
                 relevance: str = "result family"):
        if relevance not in RELEVANCE:
            raise CrsimError(f"relevance must be one of {', '.join(RELEVANCE)}, got '{relevance}'")
        self.relevance = relevance
        self.step = ExtractQueryStep(llm)
        self.dense = dense
        self.embedding_model = embedding_model
        self.cache_dir = cache_dir
        self.concurrency = concurrency
        self.encoder = encoder

    # ------------------------------------------------------------------ helpers
    def _vocabulary(self, setup: Any) -> QueryInput:
        shop = getattr(setup, "shop", None)
        if shop is None:
            raise CrsimError(f"the {self.name} evaluator scores shopping episodes; environment "
                             f"'{getattr(setup, 'name', type(setup).__name__)}' is not one")
        values: dict[str, dict[str, list[str]]] = {}
        for category, rows in shop.by_category.items():
            aspects = {a for i in rows for a in shop.features[int(i)]}
            values[category] = {a: shop.category_values(category, a) for a in aspects}
        return QueryInput((), tuple(values), values)

    async def _extract_all(self, episodes: Sequence[Episode], vocabulary: QueryInput) -> list[ShoppingQuery]:
        gate = asyncio.Semaphore(max(1, self.concurrency))

        async def one(episode: Episode) -> ShoppingQuery:
            async with gate:
                return await self.step.run(QueryInput(tuple(search_turns(episode)), vocabulary.categories,
                                                      vocabulary.values))

        return list(await asyncio.gather(*(one(e) for e in episodes)))

    def _rankers(self, catalog: Any) -> dict[str, Any]:
        from environments.search.bm25 import BM25Index

        import logging

        logging.getLogger("bm25s").setLevel(logging.WARNING)  # its build chatter would land in the tables
        bm25 = BM25Index.build(catalog, self.cache_dir)
        rankers: dict[str, Any] = {"BM25": bm25.scores}
        if self.dense:
            from environments.search.dense import DenseIndex
            from environments.search.encoders import get_encoder

            encoder = self.encoder or get_encoder(self.embedding_model)
            index = DenseIndex.build(catalog, encoder, self.cache_dir, show_progress=False)
            rankers["dense"] = lambda text: index.scores_for_vector(index.embed(text))
        return rankers

    # ------------------------------------------------------------------ the evaluation
    def evaluate(self, episodes: Sequence[Episode], setup: Any) -> pd.DataFrame:
        vocabulary = self._vocabulary(setup)
        done = [e for e in episodes if e.termination is not TerminationReason.error and e.profile.get("final_product")]
        golds = [gold_query(e) for e in done]
        extracted = asyncio.run(self._extract_all(done, vocabulary)) if done else []
        rows: list[dict[str, Any]] = []
        baseline = [dialogue_text(search_turns(e)) for e in done]
        for source, predictions in (("full dialogue", baseline), ("extracted query", extracted)):
            scores = []
            for predicted, gold in zip(predictions, golds):
                text = predicted if isinstance(predicted, str) else linearise(predicted)
                items = {text} if isinstance(predicted, str) else query_items(predicted)
                rouge = rouge_scores(text, linearise(gold))
                scores.append([exact_f1(items, query_items(gold)), rouge["rouge1"], rouge["rouge2"], rouge["rougeL"]])
            means = np.mean(scores, axis=0) if scores else [np.nan] * 4
            rows.append({"task": "CQG", "source": source, "ranker": "-", "n": len(scores),
                         **dict(zip(CQG_COLUMNS, map(float, means)))})
        catalog, shop = setup.catalog, setup.shop
        relevant = {"final product": [[catalog.item_index[e.profile["final_product"]]] for e in done],
                    "result family": [self._family(shop, e) for e in done]}
        queries: dict[str, list[Any]] = {"full dialogue": baseline, "extracted query": extracted, "gold query": golds}
        for ranker, score in (self._rankers(catalog).items() if done else []):
            for source, texts in queries.items():
                ranks: dict[str, list[int]] = {kind: [] for kind in RELEVANCE}
                for i, (episode, query) in enumerate(zip(done, texts)):
                    if isinstance(query, str):
                        scores = np.asarray(score(query), dtype=np.float64)
                    else:
                        scores = np.asarray(score(ranking_text(query)), dtype=np.float64) - DEMOTION * \
                            self._filtered_out(shop, query)
                    order = tie_broken_order(scores, np.random.default_rng(episode.seed))
                    for kind in RELEVANCE:
                        targets = [(catalog.items[row].id, row) for row in relevant[kind][i]]
                        ranks[kind].append(min(t.rank for t in rank_targets(scores, order, targets)))
                for kind in RELEVANCE:
                    r = np.asarray(ranks[kind], dtype=float)
                    rows.append({"task": "CPR", "source": source, "ranker": ranker, "relevant": kind, "n": len(r),
                                 "MRR": float(np.mean(1 / r)), **{f"H@{k}": float(np.mean(r <= k)) for k in HITS}})
        return pd.DataFrame(rows, columns=["task", "source", "ranker", "relevant", "n", *CQG_COLUMNS, *CPR_COLUMNS]
                            ).fillna({"relevant": "-"})

    @staticmethod
    def _filtered_out(shop: Any, query: ShoppingQuery) -> np.ndarray:
        """1.0 for products a structured query rules out (other category, an unwanted value)."""
        out = np.ones(len(shop.features), dtype=np.float64)
        unwanted = {v.aspect: v.value for v in query.unwanted}
        out[shop.search(query.category, {}, unwanted)] = 0.0
        return out

    @staticmethod
    def _family(shop: Any, episode: Episode) -> list[int]:
        """Catalog rows satisfying the customer's whole preference (the converged results)."""
        preference = Preference.model_validate(episode.profile["preference"])
        return [int(i) for i in shop.search(preference.category, preference.wanted, preference.unwanted)]

    def summary_lines(self, frame: pd.DataFrame) -> list[str]:
        lines = []
        for row in frame.to_dict("records"):
            if row["task"] == "CQG" and row["source"] == "extracted query":
                lines.append(f"CQG extracted query: F1 {row['F1']:.3f}, ROUGE-L {row['R-L']:.3f}")
            if row["task"] == "CPR" and row["source"] != "gold query" and row["relevant"] == self.relevance:
                lines.append(f"CPR {row['source']}, {row['ranker']}: MRR {row['MRR']:.3f}")
        lines.append(f"(CPR relevance: {self.relevance}; see the table for the other)")
        return lines

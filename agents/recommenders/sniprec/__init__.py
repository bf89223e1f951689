"""SnipRec: a conversational recommender that ranks items through snippets (sniprec paper).

`build` is the Hydra factory behind `conf/recommender/sniprec*.yaml`: SnipRec itself, with
expansion, and the paper's three baselines (document, sentence and snippet units, each
without query extraction or expansion), all one graph (`graph.py`) switched by config
keys. The index holds what the reviews of the recommender's view become (`units.py`),
plus the items' attributes as snippets.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any

from agents.base import GraphAgent
from agents.recommenders.retrieval import asked_in, mined_aspects
from agents.recommenders.sniprec.graph import SnipRecContext, SnipRecSettings, build_graph
from agents.recommenders.sniprec.units import aspect_terms_of, item_units
from agents.steps.recommender.clarify import ClarifyStep
from agents.steps.recommender.item_answer import ItemAnswerStep
from agents.steps.sniprec.snippets import ExpandStep, ItemSnippetStep, QuerySnippetStep, snippet_content
from agents.steps.text import singular
from environments.catalog import Catalog
from environments.errors import CrsimError
from environments.models import Role
from environments.search.snippets import SnippetIndex

UNITS = ("document", "sentence", "snippet")
TRANSFORMATIONS = ("paraphrase", "support", "opposite")
VALIDATORS = ("cheap", "cosine", "none")


def build(catalog: Catalog, llm: Any | None = None, *, unit: str = "snippet", extract_queries: bool = True,
          expand: Sequence[str] = (), k: int = 500, validator: str = "cheap", threshold: float = 0.5,
          kappa: float = 60.0, question_pool: int = 50, review_aspects: int = 30, batch: int = 16,
          item_snippets_llm: bool = True, embedding_model: str | None = None, cache_dir: str | None = None,
          name: str = "sniprec", encoder: Any | None = None, progress: bool = True) -> GraphAgent[SnipRecContext]:
    """A SnipRec recommender over `catalog` (the recommender's view).

    With `llm`, `item_snippets_llm=False` keeps the item snippets offline (one call per review
    is days of a small local model on a world) and uses the model per turn only.

    `encoder` replaces the sentence encoder named by `embedding_model` (tests pass a small one)."""
    from environments.search.encoders import get_encoder

    _check("unit", unit, UNITS)
    _check("validator", validator, VALIDATORS)
    for transformation in expand:
        _check("expand", transformation, TRANSFORMATIONS)
    mined = mined_aspects(catalog, review_aspects, embedding_model, cache_dir)
    item_llm = llm if item_snippets_llm else None
    units = item_units(catalog, unit, ItemSnippetStep(item_llm, "recommender"),  # type: ignore[arg-type]
                       aspect_terms=aspect_terms_of(catalog, mined), cache_dir=cache_dir, batch=batch,
                       progress=progress)
    noun = singular(catalog.item_noun)
    if not units:  # nothing to retrieve: every turn would fail, or rank at random if it did not
        raise CrsimError(f"recommender {name} ranks {catalog.item_noun} by snippets of their reviews and shown "
                         f"attributes, and this catalog has neither (e.g. a dialogue dataset's titles only); "
                         f"use a recommender that needs neither (ease, crag, zero_shot, popularity, bm25, dense)")
    encoder = encoder or get_encoder(embedding_model)
    index = SnippetIndex.build(catalog, units, encoder, cache_dir, show_progress=progress,
                               content_of=partial(snippet_content, noun=noun) if validator == "cheap" else None)
    settings = SnipRecSettings(extract_queries=extract_queries, expand=tuple(expand), k=k,  # type: ignore[arg-type]
                               validator=validator, threshold=threshold, kappa=kappa,  # type: ignore[arg-type]
                               question_pool=question_pool)
    context = SnipRecContext(catalog, index, settings, QuerySnippetStep(llm, "recommender"),
                             ExpandStep(llm, "recommender"),
                             ClarifyStep(llm, "recommender", catalog_items=catalog.items), question_pool, mined,
                             ItemAnswerStep(llm, "recommender"))
    return GraphAgent(Role.recommender, build_graph(name), context,
                      memory_keys=("snippet_scores", "read_turns", "intents", "asked_aspects"), resume=asked_in)


def _check(key: str, value: str, allowed: Sequence[str]) -> None:
    if value not in allowed:
        raise CrsimError(f"recommender.{key}={value!r} is not one of {', '.join(allowed)}")

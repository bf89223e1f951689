"""SnipRec offline: its index, its signed reciprocal-rank fusion, its view of the catalog, a turn."""

from __future__ import annotations

import asyncio
import json

import numpy as np
import pytest
from crsim_testing import HashEncoder

from agents.recommenders.sniprec import build
from agents.recommenders.sniprec.graph import rrf_update
from agents.recommenders.sniprec.units import SnippetCache, item_units
from agents.steps.sniprec.snippets import ItemSnippetStep
from environments.base import RecommenderObservation
from environments.catalog import Catalog
from environments.errors import CrsimError
from environments.models import Snippet, Turn
from environments.search.snippets import SnippetIndex
from environments.single_target import SingleTargetSetup


def observation(catalog, *answers: str) -> RecommenderObservation:
    turns = []
    for answer in answers:
        turns.append(Turn(index=len(turns), role="recommender", text="What are you looking for?"))
        turns.append(Turn(index=len(turns), role="seeker", text=answer))
    return RecommenderObservation(turn=len(answers), dialogue=turns, shown=(), candidates=catalog.item_ids,
                                  item_noun=catalog.item_noun, episode_seed=0)


def respond(agent, obs, state=None):
    return asyncio.run(agent.respond(obs, state if state is not None else agent.init_state(obs)))


def test_rrf_counts_the_best_ranked_text_of_an_item_once_per_group_with_its_sign(tiny_catalog):
    snippets = [Snippet(text=t, item_id=i, source="review") for t, i in
                [("a", "i00"), ("b", "i00"), ("b", "i01"), ("c", "i02")]]
    index = SnippetIndex.build(tiny_catalog, snippets, HashEncoder(), show_progress=False)
    a, b, c = (index.texts.index(t) for t in "abc")
    scores = rrf_update(np.zeros(len(tiny_catalog.items)), index, [np.array([a, b, c]), np.array([c])], [1, -1], 60)
    assert scores[0] == pytest.approx(1 / 61)       # i00: rank 1 ("a"); its "b" at rank 2 is ignored
    assert scores[1] == pytest.approx(1 / 62)       # i01 through the shared text "b"
    assert scores[2] == pytest.approx(1 / 63 - 1 / 61)  # i02: +rank 3 in the first group, -rank 1 in the second
    assert not scores[3:].any()                     # items no text reached keep their score


def test_units_document_sentence_snippet(tiny_catalog):
    step = ItemSnippetStep()
    documents = item_units(tiny_catalog, "document", step, aspect_terms={}, progress=False)
    sentences = item_units(tiny_catalog, "sentence", step, aspect_terms={}, progress=False)
    snippets = item_units(tiny_catalog, "snippet", step, aspect_terms={}, progress=False)
    reviews = len(tiny_catalog.reviews)
    assert sum(u.source == "review" for u in documents) == reviews
    assert sum(u.source == "attribute" for u in documents) == len(tiny_catalog.items)  # one document per item
    assert sum(u.source == "review" for u in sentences) == 3 * reviews
    assert all(u.text.startswith("This restaurant ") for u in snippets)
    assert {u.source for u in snippets} == {"review", "attribute"}


def test_the_snippet_cache_resumes_and_skips_a_cut_line(tiny_catalog, tmp_path):
    cache = SnippetCache(ItemSnippetStep(), tmp_path)
    first = cache.extract(tiny_catalog.reviews[:5], "restaurant", {}, {}, progress=False)
    with open(cache.path, "a", encoding="utf-8") as handle:
        handle.write('{"key": "cut')  # an interrupted append
    again = SnippetCache(ItemSnippetStep(), tmp_path).extract(tiny_catalog.reviews, "restaurant", {}, {},
                                                              progress=False)
    assert again[:5] == first
    keys = []
    for line in cache.path.read_text().splitlines():
        try:
            keys.append(json.loads(line)["key"])
        except ValueError:
            continue
    assert len(keys) == len(set(keys))  # nothing extracted twice


@pytest.mark.parametrize("unit", ["document", "sentence", "snippet"])
def test_the_index_holds_nothing_from_withheld_reviews(tiny_catalog, tmp_path, unit):
    marked = Catalog(tiny_catalog.manifest, tiny_catalog.items,
                     [r.model_copy(update={"text": f"{r.text} Ask for {r.id.replace('-', 'x')}special."})
                      for r in tiny_catalog.reviews], tiny_catalog.users)  # one sentence unique to each review
    view = SingleTargetSetup(marked, target_pool_size=4).agent_catalog("recommender")
    kept = {r.id for r in view.reviews}
    withheld = [r.id.replace("-", "x") for r in marked.reviews if r.id not in kept]
    assert withheld
    agent = build(view, encoder=HashEncoder(), cache_dir=str(tmp_path), review_aspects=0, unit=unit, progress=False)
    text = " ".join(agent.context.index.texts).lower()
    assert not [marker for marker in withheld if marker in text]
    assert all(r.id.replace("-", "x") in text for r in view.reviews)


def test_a_turn_ranks_by_what_was_asked_and_accumulates(tiny_catalog, tmp_path):
    agent = build(tiny_catalog, encoder=HashEncoder(), cache_dir=str(tmp_path), review_aspects=0, progress=False)
    obs = observation(tiny_catalog, "I want thai food.")
    move, state = respond(agent, obs)
    top = [tiny_catalog.items[i] for i in np.argsort(-move.scores, kind="stable")[:3]]
    assert all(item.attributes["cuisine"] == "thai" for item in top)
    assert move.question and move.metadata["query_snippets"] == [["This restaurant has thai food.", 1]]
    later = observation(tiny_catalog, "I want thai food.", "Anything but expensive, please.")
    move2, state2 = respond(agent, later, state)
    assert move2.metadata["query_snippets"] == [["This restaurant has expensive.", -1]]
    assert state2["read_turns"] == 4
    changed = state2["snippet_scores"] - state["snippet_scores"]
    expensive = np.array([item.attributes["price_range"] == "expensive" for item in tiny_catalog.items])
    assert (changed[expensive] < 0).all() and not changed[~expensive].any()  # only what was named
    fresh, _ = respond(agent, later)  # taking over half-way: every answer is read again, same scores
    np.testing.assert_allclose(fresh.scores, move2.scores)


def test_the_baseline_reads_the_raw_answer_as_one_positive_query(tiny_catalog, tmp_path):
    agent = build(tiny_catalog, encoder=HashEncoder(), cache_dir=str(tmp_path), review_aspects=0, unit="document",
                  extract_queries=False, progress=False)
    move, _ = respond(agent, observation(tiny_catalog, "Anything but loud, please."))
    assert move.metadata["query_snippets"] == [["Anything but loud, please.", 1]]


def test_bad_settings_name_the_key(tiny_catalog):
    with pytest.raises(CrsimError, match="recommender.unit='paragraph'"):
        build(tiny_catalog, encoder=HashEncoder(), unit="paragraph")
    with pytest.raises(CrsimError, match="recommender.expand='synonyms'"):
        build(tiny_catalog, encoder=HashEncoder(), expand=["synonyms"])


@pytest.mark.parametrize(("validator", "reaches_items"), [("cheap", False), ("cosine", True)])
def test_the_cheap_validator_compares_content_not_the_shared_frame(tiny_catalog, tmp_path, validator, reaches_items):
    """No text of the catalog is about loudness: whole-snippet cosines still pass the threshold
    through "This restaurant has ...", content cosines do not."""
    agent = build(tiny_catalog, encoder=HashEncoder(), cache_dir=str(tmp_path), review_aspects=0, progress=False,
                  validator=validator)
    _, state = respond(agent, observation(tiny_catalog, "I want somewhere loud."))
    assert bool(state["snippet_scores"].any()) is reaches_items

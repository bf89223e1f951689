"""Offline recommenders answer a seeker's question about a shown item before their own question,
and say exactly what they said before when nothing was asked."""

import asyncio
import dataclasses

from crsim_testing import HashEncoder, make_tiny_catalog

from agents.base import seeker_from_function
from agents.recommenders.bm25 import build as build_bm25
from agents.recommenders.crag import build as build_crag
from agents.steps.recommender.item_answer import ItemAnswerStep, ItemQuestion
from environments.base import SeekerReply
from environments.single_target import SingleTargetSetup
from simulators.engine.episode import run_episode


def _asking(question: str):
    """A seeker that states a preference, then asks `question` once items are on screen."""
    def respond(observation):
        return SeekerReply(text=question if observation.shown else "Something thai, please.")
    return seeker_from_function(respond)


def _run(setup, recommender, seeker, turns=3):
    outcome = asyncio.run(run_episode(setup, {"recommender": recommender, "seeker": seeker}, index=0, run_seed=0,
                                      max_turns=turns, config_hash="test"))
    assert outcome.episode.error is None
    return outcome.episode


def _moves(episode):
    return [t for t in episode.turns if t.role == "recommender" and not t.metadata.get("opening")]


def test_bm25_answers_the_seekers_question_about_the_second_item_first(tmp_path):
    setup = SingleTargetSetup(make_tiny_catalog(), target_pool_size=5)
    recommender = build_bm25(setup.recommender_catalog, cache_dir=str(tmp_path), review_aspects=0)
    episode = _run(setup, recommender, _asking("Is the second one quiet?"))
    moves = _moves(episode)
    asked_after = [m for m in moves if m.metadata.get("answered")]
    assert asked_after, [m.text for m in moves]
    move = asked_after[0]
    shown_before = [t for t in episode.turns if t.role == "recommender" and t.index < move.index][-1].items_shown
    assert move.metadata["answered"] == shown_before[1]
    answers = {ItemAnswerStep().offline(ItemQuestion("Is the second one quiet?", shown_before,
                                                     setup.recommender_catalog, "restaurants", turn)).answer
               for turn in range(10)}  # the phrasing is picked by turn
    answer = next(a for a in answers if move.text.startswith(a + " "))
    assert move.text.endswith("?") and len(move.text) > len(answer) + 5  # the answer, then its own question
    noise = setup.recommender_catalog.item(shown_before[1]).attributes["noise"]
    assert noise in answer and answer.startswith(("Yes", "It is, yes") if noise == "quiet" else ("No", "Not really"))


def test_without_a_question_about_an_item_the_recommender_says_exactly_what_it_said_before(tmp_path):
    setup = SingleTargetSetup(make_tiny_catalog(), target_pool_size=5)
    seeker = _asking("Can you show me something else?")  # a question, but about no item
    answering = build_bm25(setup.recommender_catalog, cache_dir=str(tmp_path), review_aspects=0)
    silent = build_bm25(setup.recommender_catalog, cache_dir=str(tmp_path), review_aspects=0)
    silent.context = dataclasses.replace(silent.context, answer=None)
    with_step, without = _run(setup, answering, seeker), _run(setup, silent, seeker)
    assert [t.model_dump() for t in with_step.turns] == [t.model_dump() for t in without.turns]
    assert not any("answered" in m.metadata for m in _moves(with_step))


def test_crag_answers_before_its_question(tmp_path):
    setup = SingleTargetSetup(make_tiny_catalog(), target_pool_size=5)
    recommender = build_crag(setup.recommender_catalog, encoder=HashEncoder(), cache_dir=str(tmp_path))
    episode = _run(setup, recommender, _asking("What cuisine is the first one?"))
    move = next(m for m in _moves(episode) if m.metadata.get("answered"))
    shown_before = [t for t in episode.turns if t.role == "recommender" and t.index < move.index][-1].items_shown
    cuisine = setup.recommender_catalog.item(shown_before[0]).attributes["cuisine"]
    assert move.metadata["answered"] == shown_before[0]
    assert move.text.split("?")[0].count(cuisine) == 1 and "cuisine" in move.text


def test_sniprec_answers_through_the_shared_clarify_node(tmp_path):
    from agents.recommenders.sniprec import build as build_sniprec

    setup = SingleTargetSetup(make_tiny_catalog(), target_pool_size=5)
    recommender = build_sniprec(setup.recommender_catalog, encoder=HashEncoder(), cache_dir=str(tmp_path),
                                review_aspects=0, unit="document", progress=False)
    episode = _run(setup, recommender, _asking("What's the third one like?"))
    move = next(m for m in _moves(episode) if m.metadata.get("answered"))
    shown_before = [t for t in episode.turns if t.role == "recommender" and t.index < move.index][-1].items_shown
    description = setup.recommender_catalog.item(shown_before[2]).description
    assert move.metadata["answered"] == shown_before[2] and description in move.text
    assert "query_snippets" in move.metadata  # the explain node still runs after it

"""CRAG through the `openai` backend against the OpenAI-API stub server on 127.0.0.1 (no network).

The stub answers each CRAG step by reading the prompt it got, as a model would: which
items it was asked to judge or rate, which message to extract from.
"""

from __future__ import annotations

import asyncio
import json
import re

import pytest
from crsim_testing import HashEncoder, make_movie_catalog
from openai_stub_server import SCRIPTED, crsim_responder, step_of

from agents.llm import backends
from agents.llm.recording import recording
from agents.recommenders.crag import build
from environments.base import RecommenderObservation
from environments.models import Turn


def user_text(request) -> str:
    return next(m["content"] for m in request["messages"] if m["role"] == "user")


def listed(request) -> list[str]:
    """The '- Title' lines of the prompt's user message."""
    return re.findall(r"^- (.+)$", user_text(request), flags=re.MULTILINE)


def extract(request) -> str:
    message = user_text(request)
    mentions = [{"name": "The Conjurng", "attitude": 2}] if "Conjuring" in message else []  # a typo to reflect on
    return json.dumps({"mentions": mentions})


def reflect_links(request) -> str:  # the first of each name's two titles
    lines = [re.match(r'(.+?): "(.+?)"', line) for line in listed(request)]
    return json.dumps({"choices": [{"name": m.group(1), "title": m.group(2)} for m in lines if m]})


def judge(request) -> str:
    titles = listed(request)
    return json.dumps({"judgements": [{"title": t, "relevant": i > 0} for i, t in enumerate(titles)]})


def rate(request) -> str:
    return json.dumps({"ratings": [{"title": t, "score": 2 if t.startswith("Scream") else 0} for t in listed(request)]})


RESPONDERS = {"crag_extract": extract, "crag_link_reflect": reflect_links, "crag_context_reflect": judge,
              "crag_rerank": rate}


@pytest.fixture
def catalog():
    return make_movie_catalog()


def crag_turn(catalog, model, tmp_path):
    agent = build(catalog, model, encoder=HashEncoder(), cache_dir=str(tmp_path))
    turns = [Turn(index=0, role="recommender", text="Hi! What are you in the mood for?"),
             Turn(index=1, role="seeker", text="I adored The Conjuring, want something as scary")]
    obs = RecommenderObservation(turn=1, dialogue=turns, shown=(), candidates=catalog.item_ids, item_noun="movies",
                                 episode_seed=0)
    with recording() as recorder:
        move, _ = asyncio.run(agent.respond(obs, agent.init_state(obs)))
    return move, recorder.records


def stub_model(stub):
    return backends.openai("stub-model", base_url=stub.url, timeout=5, max_retries=0)


def test_every_crag_step_goes_through_the_openai_backend(openai_stub, catalog, tmp_path):
    openai_stub.responder = crsim_responder(RESPONDERS)
    move, calls = crag_turn(catalog, stub_model(openai_stub), tmp_path)
    steps = [c.step for c in calls]
    assert steps == ["crag_extract", "crag_extract", "crag_link_reflect", "crag_context_reflect", "crag_recommend",
                     "crag_rerank", "clarify_question"] and all(c.ok for c in calls)
    assert [step_of(r.json) for r in openai_stub.completions] == steps  # every request reached the server
    ids = {i.title: i.id for i in catalog.items}
    titles = {i.id: i.title for i in catalog.items}
    meta = move.metadata
    assert meta["positives"] == [ids["The Conjuring (2013)"]]  # the typo, settled by the reflection call
    assert meta["kept"] == meta["retrieved"][1:]  # the model judged the first retrieved item irrelevant
    expected = [t for t in SCRIPTED["crag_recommend"]["titles"] if t != "The Conjuring 2"]
    assert [titles[i].rsplit(" (", 1)[0] for i in meta["generated"]] == expected  # linked back to the catalog
    assert titles[move.ranked_ids[0]] == "Scream (1996)"  # reranked: the only 2
    assert [titles[i].rsplit(" (", 1)[0] for i in move.ranked_ids[1:]] == [t for t in expected if t != "Scream"]
    assert move.question.startswith("STUB")


def test_an_unusable_answer_is_repaired_then_falls_back_offline(openai_stub, catalog, tmp_path):
    openai_stub.responder = crsim_responder({**RESPONDERS, "crag_rerank": lambda request: "scores: Scream=2"})
    move, calls = crag_turn(catalog, stub_model(openai_stub), tmp_path)
    rerank_calls = [c for c in calls if c.step == "crag_rerank"]
    assert [(c.ok, c.repaired) for c in rerank_calls] == [(False, False), (False, True)]
    assert sorted(move.ranked_ids) == sorted(move.metadata["generated"])  # offline rerank of the same list


def test_without_mentions_the_model_guesses_liked_items_first(openai_stub, catalog, tmp_path):
    openai_stub.responder = crsim_responder(RESPONDERS)
    agent = build(catalog, stub_model(openai_stub), encoder=HashEncoder(), cache_dir=str(tmp_path), ask=False)
    turns = [Turn(index=0, role="seeker", text="Something that will keep me up at night, please")]
    obs = RecommenderObservation(turn=1, dialogue=turns, shown=(), candidates=catalog.item_ids, item_noun="movies",
                                 episode_seed=0)
    with recording() as recorder:
        move, _ = asyncio.run(agent.respond(obs, agent.init_state(obs)))
    assert [c.step for c in recorder.records][:2] == ["crag_extract", "crag_infer"]
    titles = {i.id: i.title for i in catalog.items}
    assert move.metadata["inferred"] is True
    assert [titles[i] for i in move.metadata["positives"]] == ["The Conjuring (2013)", "Insidious (2010)"]
    assert move.metadata["retrieved"] and move.question == ""

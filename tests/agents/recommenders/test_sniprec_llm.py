"""SnipRec through the `openai` backend against the OpenAI-API stub server on 127.0.0.1 (no network)."""

from __future__ import annotations

import asyncio
import json

from crsim_testing import HashEncoder
from openai_stub_server import crsim_responder

from agents.llm import backends
from agents.llm.recording import recording
from agents.recommenders.sniprec import build
from environments.base import RecommenderObservation
from environments.models import Turn


def stub_model(stub):
    return backends.openai("stub-model", base_url=stub.url, timeout=5, max_retries=0)


def one_turn(agent, catalog):
    turns = [Turn(index=0, role="recommender", text="What are you looking for?"),
             Turn(index=1, role="seeker", text="Something with great thai food.")]
    obs = RecommenderObservation(turn=1, dialogue=turns, shown=(), candidates=catalog.item_ids,
                                 item_noun=catalog.item_noun, episode_seed=0)
    with recording() as recorder:
        move, _ = asyncio.run(agent.respond(obs, agent.init_state(obs)))
    return move, recorder.records


GROUNDED_QUERY = {"snippets": [{"text": "This restaurant serves great thai dishes.", "preference": "prefer"}]}


def test_every_sniprec_step_goes_through_the_openai_backend(openai_stub, tiny_catalog, tmp_path):
    # the query snippet must share a word with the answer, or it is dropped (`QuerySnippetStep.accept`)
    openai_stub.responder = crsim_responder({"snippet_query": lambda request: json.dumps(GROUNDED_QUERY)})
    agent = build(tiny_catalog, stub_model(openai_stub), encoder=HashEncoder(), cache_dir=str(tmp_path),
                  review_aspects=0, expand=["paraphrase", "support", "opposite"], progress=False)
    assert "This restaurant serves STUB dishes." in agent.context.index.texts  # item snippets from the model
    move, calls = one_turn(agent, tiny_catalog)
    steps = [c.step for c in calls]
    assert steps.count("snippet_query") == 1 and steps.count("snippet_expand") == 1 and all(c.ok for c in calls)
    assert move.metadata["query_snippets"] == [
        ["This restaurant serves great thai dishes.", 1], ["This restaurant offers STUB plates.", 1],
        ["This restaurant has STUB sides.", 1], ["This restaurant does not serve STUB dishes.", -1]]
    # a second build reads the item snippets from the cache: no model call
    openai_stub.requests.clear()
    build(tiny_catalog, stub_model(openai_stub), encoder=HashEncoder(), cache_dir=str(tmp_path), review_aspects=0,
          progress=False)
    assert not openai_stub.requests


def test_a_malformed_answer_is_repaired_then_falls_back_offline(openai_stub, tiny_catalog, tmp_path):
    openai_stub.responder = crsim_responder({"snippet_query": lambda request: "not json at all"})
    agent = build(tiny_catalog, stub_model(openai_stub), encoder=HashEncoder(), cache_dir=str(tmp_path),
                  review_aspects=0, progress=False)
    move, calls = one_turn(agent, tiny_catalog)
    failed = [c for c in calls if c.step == "snippet_query"]
    assert len(failed) == 2 and not any(c.ok for c in failed) and failed[1].repaired
    assert move.metadata["query_snippets"] == [["This restaurant has thai food.", 1]]  # the offline reading

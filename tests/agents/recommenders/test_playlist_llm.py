"""The LLM curator and the LLM set seeker through the `openai` backend against the
OpenAI-API stub server on 127.0.0.1 (no network)."""

from __future__ import annotations

import asyncio
import json

import pytest
from openai_stub_server import crsim_responder

from agents.llm import backends
from agents.llm.recording import recording
from agents.recommenders.llm_curator import build as build_curator
from agents.seekers.set_seeker import build as build_seeker
from environments.catalog import Catalog
from environments.models import Role
from environments.playlist import PlaylistSetup
from environments.worlds.music import generate_music_world

SEEKER, CURATOR = Role.seeker.value, Role.recommender.value


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    path = tmp_path_factory.mktemp("music")
    generate_music_world(n_items=300, n_users=20, seed=3, n_themes=3).save(path)
    return Catalog.load(path)


def stub_model(stub):
    return backends.openai("stub-model", base_url=stub.url, timeout=5, max_retries=0)


def one_round(world, curator, seeker, tmp_path):
    """The curator's first move and the seeker's answer, with the model calls they made."""
    env = PlaylistSetup(world).new_episode()
    env.reset(seed=0, options={"episode_index": 0})
    with recording() as recorder:
        curation, _ = asyncio.run(curator.respond(env.observe(CURATOR), {}))
        step = env.step(CURATOR, curation)
        reply, _ = asyncio.run(seeker.respond(env.observe(SEEKER), {}))
        env.step(SEEKER, reply)
    return env, curation, step, reply, recorder.records


def test_both_agents_go_through_the_openai_backend(openai_stub, world, tmp_path):
    openai_stub.responder = crsim_responder()
    curator = build_curator(world, stub_model(openai_stub), cache_dir=str(tmp_path))
    seeker = build_seeker(world, stub_model(openai_stub))
    env, curation, _, reply, calls = one_round(world, curator, seeker, tmp_path)
    assert [c.step for c in calls] == ["playlist_search", "playlist_pick", "playlist_seeker"]
    assert all(c.ok for c in calls)
    assert curation.metadata["query"] == ["STUB upbeat"] and curation.response == "STUB: here are some tracks."
    assert curation.add == curation.shown[:1]  # the model picked "1"
    assert reply.text == "STUB: I like the first one." and reply.feedback == {curation.shown[0]: "like"}
    transcript = env.dialogue.transcript()
    assert transcript[-1].feedback == {curation.shown[0]: "like"}
    prompt = " ".join(m["content"] for m in openai_stub.requests[-1].json["messages"])
    assert "You asked:" in prompt and "1. " in prompt  # the brief in words, numbered tracks
    assert not any(item_id in prompt for item_id in PlaylistSetup(world).goals[0].items)  # never a goal id


def test_a_curator_naming_a_track_that_does_not_exist_adds_only_real_shown_ones(openai_stub, world, tmp_path):
    invented = "Moonlight Over Nowhere by The Nobodies"
    openai_stub.responder = crsim_responder({"playlist_pick": lambda request: json.dumps({
        "add": [invented, "2", "99"], "response": "STUB: added my favourites."})})
    curator = build_curator(world, stub_model(openai_stub), cache_dir=str(tmp_path))
    env, curation, step, _, _ = one_round(world, curator, build_seeker(world), tmp_path)
    assert curation.add == [curation.shown[1]]
    assert curation.metadata["unknown_tracks"] == [invented, "99"]
    assert step.info["refused"] == [] and curation.shown[1] in env.evaluations[0].item_set.added
    logged = env.dialogue.transcript()[1]
    assert logged.metadata["unknown_tracks"] == [invented, "99"]  # the log says what was invented


def test_seeker_numbers_outside_the_lists_are_ignored_and_noted(openai_stub, world, tmp_path):
    openai_stub.responder = crsim_responder({"playlist_seeker": lambda request: json.dumps({
        "text": "STUB: the twelfth one is great, drop the fifth.", "like": [12, 2], "remove": [5], "done": False})})
    curator = build_curator(world, None, cache_dir=str(tmp_path))
    _, curation, _, reply, _ = one_round(world, curator, build_seeker(world, stub_model(openai_stub)), tmp_path)
    assert reply.feedback == {curation.shown[1]: "like"}
    assert reply.metadata["ignored"] == [12, 5] and reply.remove == [] and not reply.accept


def test_a_malformed_answer_is_repaired_then_falls_back_to_the_offline_agents(openai_stub, world, tmp_path):
    openai_stub.responder = crsim_responder({"playlist_pick": lambda request: "not json",
                                             "playlist_seeker": lambda request: "still not json"})
    curator = build_curator(world, stub_model(openai_stub), cache_dir=str(tmp_path))
    _, curation, _, reply, calls = one_round(world, curator, build_seeker(world, stub_model(openai_stub)), tmp_path)
    failed = [c for c in calls if c.step in ("playlist_pick", "playlist_seeker")]
    assert len(failed) == 4 and not any(c.ok for c in failed)
    offline = build_curator(world, None, cache_dir=str(tmp_path))
    _, expected, _, expected_reply, _ = one_round(world, offline, build_seeker(world), tmp_path)
    # the query came from the model, so what is shown may differ; the fallback adds the top new tracks
    assert curation.add == curation.shown[:3] and curation.response.startswith("Here are some tracks:")
    assert reply.text and reply.metadata.get("stated") is not None and "ignored" not in reply.metadata
    assert expected.add == expected.shown[:3] and expected_reply.text


def test_names_link_to_shown_tracks_by_number_title_or_title_and_artist():
    from agents.steps.playlist.steps import link_tracks
    from environments.base import ItemCard

    shown = [ItemCard("a", "Stand by Me", "", {"artist": ["Ben E. King"]}),
             ItemCard("b", "Home", "", {"artist": ["Ann"]}), ItemCard("c", "Home", "", {"artist": ["Bo"]}),
             ItemCard("d", "Blue", "", {"artist": "Joni"})]
    linked, unknown = link_tracks(["Stand by Me", "stand by me by Ben E. King", "Home by Bo", "Home", "4.",
                                   "'Blue'", "9", "Nowhere by Nobody"], shown)
    assert linked == ["a", "c", "d"]
    assert unknown == ["Home", "9", "Nowhere by Nobody"]  # an ambiguous title, a number off the list, an invention

"""The offline set-seeking seeker: judges cards by the theme, removes misfits, states wishes, completes."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agents.seekers.set_seeker import SetSeeker, build, lexicon_for
from environments.base import ItemCard
from environments.catalog import Catalog
from environments.models import Role, TerminationReason
from environments.playlist import Curation, PlaylistSetup
from environments.playlist.goals import ThemeBrief
from environments.worlds.music import generate_music_world
from environments.worlds.music_vocab import SEEKER_MUSIC_WORDS

SEEKER, CURATOR = Role.seeker.value, Role.recommender.value
BRIEF = ThemeBrief("upbeat 80s party", "party time", {"mood": {"upbeat": 1.0}, "era": {"1980s": 1.0},
                                                      "genre": {"pop": 0.6, "rock": 0.3}, "artist": {"Neon Kings": 0.3}},
                   size=2)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    path = tmp_path_factory.mktemp("music")
    generate_music_world(n_items=300, n_users=20, seed=3, n_themes=3).save(path)
    return Catalog.load(path)


def _card(item_id: str, description: str = "", **attributes: object) -> ItemCard:
    return ItemCard(item_id, f"Title {item_id}", description, attributes)


def test_judges_by_visible_attributes_and_described_values(world: Catalog) -> None:
    lexicon, _ = lexicon_for(world)
    seeker = SetSeeker(lexicon, SEEKER_MUSIC_WORDS)
    assert seeker.judge(_card("a", mood="upbeat"), BRIEF).kind == "like"
    assert seeker.judge(_card("b", "Synth-drenched hooks and feel-good bounce."), BRIEF).kind == "like"
    assert seeker.judge(_card("c", mood="melancholy", era="1980s", genre="jazz"), BRIEF).kind == "dislike"
    assert seeker.judge(_card("d", artist=["Neon Kings"]), BRIEF).kind == "like"
    assert seeker.judge(_card("e"), BRIEF).kind is None  # nothing to go on: no opinion
    assert seeker.judge(_card("f", mood="upbeat", genre="jazz"), BRIEF).kind is None  # mixed


def test_a_music_world_episode_reacts_removes_wishes_and_completes(world: Catalog) -> None:
    setup = PlaylistSetup(world, top_k=5)
    env = setup.new_episode()
    env.reset(seed=0, options={"episode_index": 0})
    goal = setup.goals[0]
    agent = build(world)
    misfit = next(i for i in world.item_ids if i not in goal.items and
                  SetSeeker(*lexicon_for(world)).judge(ItemCard.of(world.item(i)), goal.brief).kind == "dislike")
    env.step(CURATOR, Curation("Try these.", shown=[goal.items[0], misfit], add=[goal.items[0], misfit]))
    reply, _ = asyncio.run(agent.respond(env.observe(SEEKER), {}))
    assert reply.feedback.get(misfit) == "dislike" and reply.remove == [misfit] and not reply.accept
    assert reply.metadata["stated"] and "off the playlist" in reply.text
    aspect, value = reply.metadata["stated"][0]
    words = SEEKER_MUSIC_WORDS.get(aspect, {}).get(value, [])
    assert any(w in reply.text for w in words) or aspect == "artist"
    env.step(SEEKER, reply)
    fillers = [i for i in goal.items[1:] if i not in env.items.item_set()][: goal.brief.size]
    env.step(CURATOR, Curation("More.", shown=fillers[:10], add=fillers[:10]))
    chunks = [fillers[k:k + 10] for k in range(10, len(fillers), 10)]
    for chunk in chunks:
        env.step(SEEKER, asyncio.run(agent.respond(env.observe(SEEKER), {}))[0])
        env.step(CURATOR, Curation("More.", shown=chunk, add=chunk))
    final, _ = asyncio.run(agent.respond(env.observe(SEEKER), {}))
    result = env.step(SEEKER, final)
    kept = len(env.items.item_set())
    assert (result.termination is TerminationReason.set_complete) == (kept >= goal.brief.size and not final.remove)
    stated = [tuple(f) for t in env.dialogue.transcript() if t.role == SEEKER for f in t.metadata.get("stated", [])]
    assert len(stated) == len(set(stated))  # each wish said once


def test_never_sees_goal_ids(world: Catalog) -> None:
    setup = PlaylistSetup(world)
    env = setup.new_episode()
    env.reset(seed=0, options={"episode_index": 1})
    observation = env.observe(SEEKER)
    assert not any(i in repr(observation.profile) or i in repr(observation.dialogue) for i in setup.goals[1].items)


def test_same_seed_same_reply(world: Catalog) -> None:
    setup = PlaylistSetup(world)
    agent = build(world)
    replies = []
    for _ in range(2):
        env = setup.new_episode()
        env.reset(seed=5, options={"episode_index": 2})
        env.step(CURATOR, Curation("x", shown=list(world.item_ids[:10]), add=list(world.item_ids[:3])))
        replies.append(asyncio.run(agent.respond(env.observe(SEEKER), {}))[0])
    assert replies[0] == replies[1]


def test_a_removal_names_the_artist_when_titles_are_shared() -> None:
    from agents.seekers.set_seeker import _name

    cover = ItemCard("t2", "Waiting for Honey", "", {"artist": ["The Stray Tigers"]})
    original = ItemCard("t1", "Waiting for Honey", "", {"artist": ["The Ghost Engines"]})
    other = ItemCard("t3", "Into the Fire", "", {"artist": ["Otis Hart"]})
    assert _name(cover, [original, cover, other]) == "'Waiting for Honey' by The Stray Tigers"
    assert _name(other, [original, cover, other]) == "'Into the Fire'"


def test_target_free_brief_holds_only_the_request_and_a_compatible_taste(world: Catalog) -> None:
    setup = PlaylistSetup(world, disclose="request")
    for goal in setup.goals:
        told, biased = setup.brief(goal), goal.brief
        assert dict(told.values) == {aspect: {value: 1.0} for aspect, value in goal.constraints.items()}
        assert "artist" not in told.values and "artist" in biased.values  # the goal's artists stay hidden
        assert told.taste, "a world listener's taste is disclosed"
        assert all(told.taste.get(aspect, {}).get(value, 0.0) >= 0 for aspect, value in goal.constraints.items())
    with pytest.raises(Exception, match="disclose"):
        PlaylistSetup(world, disclose="goal")


def test_target_free_judges_by_taste_where_the_request_says_nothing(world: Catalog) -> None:
    seeker = SetSeeker(*lexicon_for(world))
    brief = ThemeBrief("party", "party time", {"mood": {"upbeat": 1.0}}, size=5,
                       taste={"genre": {"jazz": 1.2, "country": -1.4}})
    assert seeker.judge(_card("a", genre="jazz"), brief).kind == "like"
    assert seeker.judge(_card("b", genre="country"), brief).kind == "dislike"
    assert seeker.judge(_card("c", mood="upbeat", genre="country"), brief).kind is None  # fits, but disliked
    stated = {("mood", "upbeat")}
    assert seeker._next_wish(brief, stated) == ("genre", "jazz")  # then what its taste likes


def test_with_nothing_disclosed_but_the_request_it_reads_the_request(world: Catalog) -> None:
    seeker = SetSeeker(*lexicon_for(world))
    brief = ThemeBrief("", "Some melancholy songs please, nothing else matters.", {}, size=5)
    assert seeker._wanted(brief, "mood") == ["melancholy"]
    assert seeker.judge(_card("a", mood="melancholy"), brief).kind == "like"
    assert seeker.judge(_card("b", mood="upbeat"), brief).kind == "dislike"

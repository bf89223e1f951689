"""PEPPER seekers in the multi-target environment: never told targets, react to what is shown."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from agents.seekers.target_free import build, build_target_biased
from agents.steps.seeker.talk import spoken_title
from environments.base import Recommendation
from environments.errors import CrsimError
from environments.models import Role
from environments.multi_target import MultiTargetSetup
from environments.target_facts import target_knowledge

SEEKER, RECOMMENDER = Role.seeker.value, Role.recommender.value


@pytest.fixture(scope="module")
def world(crsim_cache):
    from environments.worlds import load_world

    return load_world("movie", n_items=200, n_users=60, min_reviews_per_item=5, seed=3, cache_dir=crsim_cache)


async def play(setup: MultiTargetSetup, seeker, index: int, turns: int = 3, seed: int = 7) -> list:
    """Seeker and a recommender that ranks by a seeded shuffle; returns the seeker's replies."""
    env = setup.new_episode()
    observations = env.reset(seed=seed, options={"episode_index": index})
    state = seeker.init_state(observations[SEEKER])
    rng = np.random.default_rng(seed)
    replies = []
    for _ in range(turns):
        observation = env.observe(SEEKER)
        reply, state = await seeker.respond(observation, state)
        env.step(SEEKER, reply)
        reply.metadata["on_screen"] = [c.id for c in observation.shown]
        replies.append(reply)
        candidates = env.observe(RECOMMENDER).candidates
        env.step(RECOMMENDER, Recommendation(question="Anything else?", scores=rng.random(len(candidates))))
    return replies


async def test_target_free_seeker_states_preferences_and_reacts_to_shown_items(world, hash_encoder):
    setup = MultiTargetSetup(world, user_pool_size=10, top_k=4)
    seeker = build(setup.agent_catalog(SEEKER), encoder=hash_encoder, dont_know_rate=0.0)
    replies = await play(setup, seeker, 0)
    first, later = replies[0], replies[1:]
    assert first.metadata["facts"] and not first.feedback  # nothing shown before the first reply
    assert any(r.feedback for r in later)
    for reply in later:
        assert set(reply.feedback) <= set(reply.metadata["on_screen"]) and set(reply.feedback.values()) <= {"like", "dislike"}
        assert {r["item_id"] for r in reply.metadata["reactions"]} >= set(reply.feedback)


async def test_seeker_profile_never_holds_its_targets(world, hash_encoder):
    setup = MultiTargetSetup(world, user_pool_size=10, top_k=4)
    for slot in setup.pool:
        profile = setup.profile_for(slot)
        assert profile.seen_ids().isdisjoint(slot.target_ids) and not profile.disclosed
        texts = " ".join(s.review for s in profile.seen)
        for target in slot.targets:  # not even the user's own review of a target
            assert world.review_by_id[target.review_id].text not in texts


async def test_same_seed_same_conversation(world, hash_encoder):
    setup = MultiTargetSetup(world, user_pool_size=10, top_k=4)
    runs = [[r.text for r in await play(setup, build(setup.agent_catalog(SEEKER), encoder=hash_encoder), 2)]
            for _ in range(2)]
    assert runs[0] == runs[1]


async def test_target_biased_variant_speaks_from_disclosed_targets_only(world, hash_encoder):
    setup = MultiTargetSetup(world, user_pool_size=10, top_k=4, disclose_targets="selected")
    seeker = build_target_biased(setup.agent_catalog(SEEKER), encoder=hash_encoder, dont_know_rate=0.0)
    replies = await play(setup, seeker, 1, turns=6)
    slot = setup.pool[1]
    known = [target_knowledge(world, setup.items_by_id[t]) for t in slot.selected]
    selected_values = {(f.aspect, f.value) for k in known for f in k.facts}  # true values, not the card's
    selected_values |= {("signature", s) for k in known for s in k.signatures}  # what a plot summary gives away
    claims = [tuple(c[:2]) for r in replies for c in r.metadata["claims"] if c[2] > 0]
    assert claims and set(claims) <= selected_values
    assert any(aspect == "signature" for aspect, _ in claims)
    assert not any(r.feedback for r in replies)  # no reflection
    blind = MultiTargetSetup(world, user_pool_size=10, top_k=4)
    with pytest.raises(CrsimError, match="disclose_targets=selected"):
        await play(blind, build_target_biased(blind.agent_catalog(SEEKER), encoder=hash_encoder), 0, turns=1)


async def test_a_seeker_can_name_its_best_rated_seen_titles_one_a_turn(world, hash_encoder):
    setup = MultiTargetSetup(world, user_pool_size=10, top_k=4)
    seeker = build(setup.agent_catalog(SEEKER), encoder=hash_encoder, mention_liked=2)
    replies = await play(setup, seeker, 3)
    profile = setup.profile_for(setup.pool[3])
    best = sorted((s for s in profile.seen if s.rating >= 4), key=lambda s: (-s.rating, s.item.id))[:2]
    assert [list(r.mentions) for r in replies] == [[best[0].item.id], [best[1].item.id], []]
    assert best[0].item.title in replies[0].text and best[1].item.title in replies[1].text
    assert {b.item.id for b in best}.isdisjoint(setup.pool[3].target_ids)  # seen items, never targets


async def test_with_a_policy_everywhere_unseen_items_are_judged_as_people_judged_suggestions(world, hash_encoder,
                                                                                             tmp_path):
    from environments.acts.policy import PolicySource, ReactionRates, SeekerPolicy, save_policy

    rates = ReactionRates(items=10, seen_share=0.0, like_share=1.0, seen_intercept=-9.0, seen_slope=0.0)
    save_policy(SeekerPolicy(source=PolicySource(corpus="toy", splits=["train"], conversations=1, seeker_turns=1),
                             counts={}, reactions=rates), tmp_path / "people.json")
    setup = MultiTargetSetup(world, user_pool_size=10, top_k=4)
    own = build(setup.agent_catalog(SEEKER), encoder=hash_encoder, dont_know_rate=0.0, policy=None)
    people = build(setup.agent_catalog(SEEKER), encoder=hash_encoder, dont_know_rate=0.0,
                   policy=str(tmp_path / "people.json"))
    auto = build(setup.agent_catalog(SEEKER), encoder=hash_encoder, dont_know_rate=0.0)  # grounded episodes only
    mine = [r for reply in await play(setup, own, 0) for r in reply.metadata.get("reactions") or []]
    liked = [r for reply in await play(setup, people, 0) for r in reply.metadata.get("reactions") or []]
    assert [r for reply in await play(setup, auto, 0) for r in reply.metadata.get("reactions") or []] == mine
    assert any(r["reaction"] == "dislike" and not r["seen"] for r in mine)  # its preferences turn films down
    assert all(r["reaction"] == "like" for r in liked if not r["seen"])  # people liked what they were suggested
    for reply in await play(setup, people, 0):
        said = [r["item_id"] for r in reply.metadata.get("reactions") or []]
        assert len(reply.feedback) <= 1 and set(reply.feedback) <= set(said)  # feedback on what it talks about


async def test_with_a_policy_it_takes_its_next_act_from_people_not_from_its_own_rule(world, hash_encoder, tmp_path):
    from environments.acts.policy import PolicySource, ReactionRates, SeekerPolicy, save_policy

    rates = ReactionRates(items=10, seen_share=0.0, like_share=1.0, seen_intercept=-9.0, seen_slope=0.0)
    setup = MultiTargetSetup(world, user_pool_size=10, top_k=4)
    replies = {}
    for family in ("react", "close"):
        counts = {context: {family: 1000} for context in ("ask_seen", "close", "elicit", "inform", "other", "recommend")}
        path = tmp_path / f"{family}.json"
        save_policy(SeekerPolicy(source=PolicySource(corpus="toy", splits=["train"], conversations=1, seeker_turns=1),
                                 counts=counts, reactions=rates, min_count=1), path)
        seeker = build(setup.agent_catalog(SEEKER), encoder=hash_encoder, dont_know_rate=0.0, policy=str(path))
        replies[family] = await play(setup, seeker, 0)
    shown_later = [r for r in replies["react"] if r.metadata["on_screen"]]
    assert shown_later and all(r.metadata["move"] == "react" and len(r.feedback) == 1 for r in shown_later)
    assert all(r.metadata["move"] == "close" and r.quit and not r.feedback for r in replies["close"])


@pytest.fixture(scope="module")
def redial(tmp_path_factory):
    from crsim_testing import import_redial_fixture

    return import_redial_fixture(tmp_path_factory, n_train=12, n_test=6)


def _policy(tmp_path, name: str, by_turn: dict[int, str], otherwise: str):
    """A policy file whose people always did `by_turn[turn]` at that seeker turn, else `otherwise`."""
    from environments.acts.policy import CONTEXTS, PolicySource, ReactionRates, SeekerPolicy, save_policy

    counts = {c: {otherwise: 1000} for c in CONTEXTS}
    counts |= {f"{c}@{turn}": {family: 1000} for c in CONTEXTS for turn, family in by_turn.items()}
    rates = ReactionRates(items=10, seen_share=0.5, like_share=1.0, seen_intercept=0.0, seen_slope=0.0)
    path = tmp_path / f"{name}.json"
    save_policy(SeekerPolicy(source=PolicySource(corpus="toy", splits=["train"], conversations=1, seeker_turns=1),
                             counts=counts, reactions=rates, min_count=1), path)
    return str(path)


async def play_grounded(setup, seeker, index: int, turns: int = 4) -> list:
    """A grounded episode against a recommender that shows the same four films every turn."""
    env = setup.new_episode()
    env.reset(seed=0, options={"episode_index": index})
    state, replies = None, []
    for _ in range(turns):
        candidates = env.observe(RECOMMENDER).candidates
        env.step(RECOMMENDER, Recommendation(question="Anything else?", ranked_ids=candidates[:4]))
        observation = env.observe(SEEKER)
        state = state or seeker.init_state(observation)
        reply, state = await seeker.respond(observation, state)
        env.step(SEEKER, reply)
        replies.append(reply)
    return replies


async def test_grounded_it_names_the_films_the_person_knew_once_each(redial, hash_encoder, tmp_path):
    from environments.single_target import GroundedSetup, build_grounded

    setup = GroundedSetup(build_grounded(str(redial)).catalog, split="test_data", seeker_knows="history")
    seeker = build(setup.agent_catalog(SEEKER), encoder=hash_encoder,
                   policy=_policy(tmp_path, "name", {}, "name_liked"), wordings=None)
    # the fixture's people name their films in their openings (said already): the person of
    # conversation 0 also named two others later, before the recommender did
    first = setup.conversations[0]
    opening = " ".join(text.lower() for role, text in first.opening if role == SEEKER)
    later = [i for i in setup.catalog.item_ids if i != first.target and i not in first.known
             and spoken_title(setup.catalog.item(i).title).lower() not in opening][:2]
    setup.conversations[0] = replace(first, known=(*first.known, *later))
    profile = setup.profile_for(setup.conversations[0])
    liked = [s.item for s in profile.seen if s.rating != 1.0
             and spoken_title(s.item.title).lower() not in opening]
    assert [card.id for card in liked] == later  # what the opening said is not named again
    replies = await play_grounded(setup, seeker, 0, turns=len(liked) + 1)
    assert [r.mentions for r in replies[:len(liked)]] == [[card.id] for card in liked]  # in the person's order
    assert all(spoken_title(card.title) in r.text for card, r in zip(liked, replies))
    assert replies[-1].metadata["move"] != "name_liked" and not replies[-1].mentions  # each once


async def test_grounded_it_reacts_later_to_films_it_said_nothing_of(redial, hash_encoder, tmp_path):
    from environments.single_target import GroundedSetup, build_grounded

    setup = GroundedSetup(build_grounded(str(redial)).catalog, split="test_data", seeker_knows="history")
    seeker = build(setup.agent_catalog(SEEKER), encoder=hash_encoder,
                   policy=_policy(tmp_path, "later", {2: "ask_more"}, "react"), wordings=None)
    replies = await play_grounded(setup, seeker, 0, turns=3)
    # turn 2 asked for more and said nothing of the films on screen; they are still there to react to
    assert replies[0].metadata["move"] == "ask_more" and replies[0].metadata["about"] == []
    assert replies[1].metadata["move"] == "react" and len(replies[1].feedback) == 1
    assert replies[2].metadata["move"] == "react" and set(replies[2].feedback).isdisjoint(replies[1].feedback)


async def test_grounded_it_says_the_person_s_own_tastes(redial, hash_encoder, tmp_path):
    from environments.single_target import GroundedSetup, build_grounded
    from environments.single_target.grounded import person_words

    setup = GroundedSetup(build_grounded(str(redial)).catalog, split="test_data", seeker_knows="history")
    # too few people in the fixture to share taste words: take every word they said as one
    setup.taste_words = frozenset(person_words(tuple(u for c in setup.conversations for u in c.person.utterances)))
    conversation = next(c for c in setup.conversations if setup.profile_for(c).tastes)
    tastes = setup.profile_for(conversation).tastes
    seeker = build(setup.agent_catalog(SEEKER), encoder=hash_encoder, dont_know_rate=0.0,
                   policy=_policy(tmp_path, "taste", {}, "preference"), wordings=None)
    replies = await play_grounded(setup, seeker, setup.conversations.index(conversation), turns=3)
    said = [k for r in replies for k in r.metadata["facts"] if k.startswith("taste:")]
    assert said and set(said) <= {f"taste:{w}" for w in tastes}
    assert any(w in r.text.lower() for r in replies for w in tastes)

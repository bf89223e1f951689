"""The multi-target (PEPPER) environment: user pool, seen/target split, views, evaluation records."""

from __future__ import annotations

import numpy as np
import pytest

from environments.base import Recommendation, SeekerReply
from environments.errors import CrsimError
from environments.models import Role, SeenItem
from environments.multi_target import MultiTargetSetup, split_history

SEEKER, RECOMMENDER = Role.seeker.value, Role.recommender.value


@pytest.fixture(scope="module")
def world(crsim_cache):
    from environments.worlds import load_world

    return load_world("movie", n_items=200, n_users=60, min_reviews_per_item=5, seed=3, cache_dir=crsim_cache)


@pytest.fixture(scope="module")
def setup(world):
    return MultiTargetSetup(world, user_pool_size=40, top_k=4)


def test_split_holds_out_a_share_and_selects_half_of_it():
    history = [SeenItem(item_id=f"m{i}", rating=float(1 + i % 5), review_id=f"r{i}") for i in range(20)]
    seen, targets, selected = split_history(history, 0.2, "random", np.random.default_rng(0))
    assert len(targets) == 4 and len(seen) == 16
    assert {s.item_id for s in seen}.isdisjoint(t.item_id for t in targets)
    assert len(selected) == 2 and set(selected) <= {t.item_id for t in targets}
    _, top, _ = split_history(history, 0.2, "top_rated", np.random.default_rng(0))
    assert all(t.rating == 5.0 for t in top)
    with pytest.raises(CrsimError, match="target_rule"):
        split_history(history, 0.2, "newest", np.random.default_rng(0))


def test_no_users_target_reaches_the_agents_views(setup, world):
    """The recommender's (and seeker's) catalog view holds no pool user's target: not the
    review, not the user's seen entry, not the interaction."""
    view = setup.agent_catalog(RECOMMENDER)
    assert setup.agent_catalog(SEEKER) is view
    matrix = view.interactions()
    assert matrix is not None
    users = {u.user_id: u for u in view.users}
    checked = 0
    for slot in setup.pool:
        assert len(slot.seen) + len(slot.targets) >= 10
        for target in slot.targets:
            checked += 1
            assert target.review_id not in view.review_by_id
            assert target.review_id in world.review_by_id
            assert not any(r.user_id == slot.user_id and r.item_id == target.item_id for r in view.reviews)
            assert target.item_id not in {s.item_id for s in users[slot.user_id].seen}
            row, col = matrix.user_index[slot.user_id], matrix.item_index[target.item_id]
            assert matrix.matrix[row, col] == 0
        for seen in slot.seen:  # what the user has seen stays
            assert seen.review_id in view.review_by_id
    assert checked > 80
    assert world.interactions().matrix.nnz - matrix.matrix.nnz == checked


def test_episodes_walk_the_pool_and_record_every_targets_rank(setup):
    env = setup.new_episode()
    first = env.reset(seed=5, options={"episode_index": 3})
    slot = setup.pool[3]
    profile = first[SEEKER].profile
    assert profile.user_id == slot.user_id and not profile.disclosed
    assert profile.seen_ids().isdisjoint(slot.target_ids)
    assert all(s.review for s in profile.seen)
    rec = first[RECOMMENDER]
    assert [t.text for t in rec.dialogue] == ["Hi, how can I help you?"]
    assert not any(slot.user_id in str(getattr(rec, name)) for name in rec.__slots__)

    env.step(SEEKER, SeekerReply(text="something dark"))
    ranked = slot.target_ids[:1] + [i for i in setup.recommender_catalog.item_ids if i not in slot.target_ids][:5]
    env.step(RECOMMENDER, Recommendation(question="More?", ranked_ids=ranked))
    assert [c.id for c in env.observe(SEEKER).shown] == ranked[:4]
    env.step(SEEKER, SeekerReply(text="liked the first", feedback={ranked[0]: "like"}))
    env.step(RECOMMENDER, Recommendation(question="And?", scores=np.zeros(len(setup.recommender_catalog.items))))
    evaluation = env.evaluation()
    assert evaluation.targets == slot.target_ids
    assert evaluation.target_groups["selected"] == list(slot.selected)
    assert sorted(evaluation.target_groups["selected"] + evaluation.target_groups["residual"]) == \
        sorted(slot.target_ids)
    first_turn, second = evaluation.evaluations
    assert [r.item_id for r in first_turn.ranks] == slot.target_ids
    assert first_turn.rank_of(slot.target_ids[0]) == 1
    assert all(r.rank > 6 for r in first_turn.ranks[1:])
    assert all(r.n_tied == len(setup.recommender_catalog.items) for r in second.ranks)
    assert evaluation.turns[3].feedback == {ranked[0]: "like"}


def test_target_biased_variant_is_told_the_selected_targets_without_titles(world):
    setup = MultiTargetSetup(world, user_pool_size=10, disclose_targets="selected")
    env = setup.new_episode()
    profile = env.reset(seed=0, options={"episode_index": 0})[SEEKER].profile
    slot = setup.pool[0]
    assert len(profile.disclosed) == len(slot.selected)
    for disclosed, target in zip(profile.disclosed, slot.selected):
        item = world.item(target)
        assert disclosed.attributes == item.attributes and disclosed.description == item.description
        assert not hasattr(disclosed, "title")
    with pytest.raises(CrsimError, match="disclose_targets"):
        MultiTargetSetup(world, disclose_targets="all")


def test_same_index_same_user_and_options_pick_users(setup):
    a, b = setup.new_episode(), setup.new_episode()
    a.reset(seed=1, options={"episode_index": len(setup.pool) + 2})
    b.reset(seed=2, options={"user": setup.pool[2].user_id})
    assert a.evaluation().targets == b.evaluation().targets == setup.pool[2].target_ids


def test_keeps_the_environment_contract(setup):
    from environments.check import check_environment

    check_environment(setup, rounds=3)

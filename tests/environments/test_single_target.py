import numpy as np
import pytest

from environments.base import Recommendation, SeekerReply
from environments.models import Role
from environments.single_target import SingleTargetSetup


@pytest.fixture
def setup(tiny_catalog):
    return SingleTargetSetup(tiny_catalog, target_pool_size=10, top_k=4)


def test_seekers_own_review_never_reaches_recommender(setup):
    assert setup.pool
    for slot in setup.pool:
        assert slot.review_id not in setup.recommender_catalog.review_by_id
        assert slot.review_id in setup.catalog.review_by_id
        assert setup.catalog.review_by_id[slot.review_id].rating >= 4


def test_reset_opens_with_fixed_question_and_hides_target(setup):
    env = setup.new_episode()
    obs = env.reset(seed=3)
    rec, seek = obs[Role.recommender], obs[Role.seeker]
    assert [t.text for t in rec.dialogue] == ["Hello, what category of restaurants are you looking for?"]
    target = env.evaluation()["target_item"]
    assert not hasattr(rec, "profile")
    values = [getattr(rec, name) for name in rec.__slots__]
    assert not any(isinstance(v, type(seek.profile)) for v in values)
    assert seek.profile.target_id == target
    assert target in setup.recommender_catalog.item_index


def test_step_ranks_shows_top_k_and_records_target_rank(setup):
    env = setup.new_episode()
    env.reset(seed=1)
    target = env.evaluation()["target_item"]
    env.step(SeekerReply(text="thai please"))
    ranked = [target] + [i for i in setup.recommender_catalog.item_ids if i != target][:5]
    result = env.step(Recommendation(question="Price?", ranked_ids=ranked))
    assert [card.id for card in result.observation.shown] == ranked[:4]
    record = env.evaluation()["rankings"][0]
    assert (record.turn, record.target_rank, record.n_better, record.n_tied) == (1, 1, 0, 1)
    assert record.n_candidates == 24


def test_ties_are_broken_by_the_seeded_generator(setup):
    ranks = []
    for seed in range(30):
        env = setup.new_episode()
        env.reset(seed=seed, options={"target": setup.pool[0].item_id})
        env.step(SeekerReply(text="anything"))
        env.step(Recommendation(question="?", scores=np.zeros(24)))
        record = env.evaluation()["rankings"][0]
        assert record.n_tied == 24 and record.n_better == 0
        ranks.append(record.target_rank)
    assert len(set(ranks)) > 5  # not always the catalog's first item
    again = setup.new_episode()
    again.reset(seed=0, options={"target": setup.pool[0].item_id})
    again.step(SeekerReply(text="anything"))
    again.step(Recommendation(question="?", scores=np.zeros(24)))
    assert again.evaluation()["rankings"][0].target_rank == ranks[0]


def test_bad_recommendations_are_rejected(setup):
    env = setup.new_episode()
    env.reset(seed=0)
    env.step(SeekerReply(text="hi"))
    with pytest.raises(ValueError, match="scores for 24 candidates"):
        env.step(Recommendation(question="?", scores=np.zeros(3)))
    with pytest.raises(ValueError, match="unknown item 'zzz'"):
        env.step(Recommendation(question="?", ranked_ids=["zzz"]))


def test_accept_terminates(setup):
    env = setup.new_episode()
    env.reset(seed=0)
    assert env.step(SeekerReply(text="that's it", accept=True)).terminated


def test_private_turn_metadata_is_not_shown_to_the_other_role(setup):
    env = setup.new_episode()
    env.reset(seed=0)
    obs = env.step(SeekerReply(text="thai", metadata={"fact": "attr:cuisine=thai"})).observation
    assert obs.dialogue[0].metadata == {"opening": True}  # the environment's own note stays
    assert obs.dialogue[1].metadata == {}  # the seeker's private note does not reach the recommender
    back = env.step(Recommendation(question="Price?", scores=np.zeros(24), metadata={"aspect": "price"}))
    assert back.observation.dialogue[1].metadata == {"fact": "attr:cuisine=thai"}  # own notes visible
    assert back.observation.dialogue[2].metadata == {}
    logged = env.dialogue.transcript()
    assert logged[1].metadata["fact"] == "attr:cuisine=thai" and logged[2].metadata["aspect"] == "price"

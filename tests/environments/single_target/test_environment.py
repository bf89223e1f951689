import numpy as np
import pytest

from environments.base import Recommendation, SeekerReply
from environments.models import Role, TerminationReason, Turn
from environments.single_target import SingleTargetSetup

SEEKER, RECOMMENDER = Role.seeker.value, Role.recommender.value


@pytest.fixture
def setup(tiny_catalog):
    return SingleTargetSetup(tiny_catalog, target_pool_size=10, top_k=4)


def test_declares_its_protocol(setup):
    assert setup.roles == ("seeker", "recommender")
    assert setup.agent_catalog(RECOMMENDER) is setup.recommender_catalog
    assert setup.agent_catalog(SEEKER) is None


def test_seekers_own_review_never_reaches_recommender(setup):
    assert setup.pool
    for slot in setup.pool:
        assert slot.review_id not in setup.recommender_catalog.review_by_id
        assert slot.review_id in setup.catalog.review_by_id
        assert setup.catalog.review_by_id[slot.review_id].rating >= 4


def test_reset_opens_with_fixed_question_and_hides_target(setup):
    env = setup.new_episode()
    obs = env.reset(seed=3)
    rec, seek = obs[RECOMMENDER], obs[SEEKER]
    assert [t.text for t in rec.dialogue] == ["Hello, what category of restaurants are you looking for?"]
    target = env.evaluation().targets[0]
    assert not hasattr(rec, "profile")
    values = [getattr(rec, name) for name in rec.__slots__]
    assert not any(isinstance(v, type(seek.profile)) for v in values)
    assert seek.profile.target_id == target
    assert target in setup.recommender_catalog.item_index


def test_step_ranks_shows_top_k_and_records_target_rank(setup):
    env = setup.new_episode()
    env.reset(seed=1)
    target = env.evaluation().targets[0]
    env.step(SEEKER, SeekerReply(text="thai please"))
    ranked = [target] + [i for i in setup.recommender_catalog.item_ids if i != target][:5]
    result = env.step(RECOMMENDER, Recommendation(question="Price?", ranked_ids=ranked))
    assert result.termination is None
    assert [card.id for card in env.observe(SEEKER).shown] == ranked[:4]
    record = env.evaluation().evaluations[0]
    assert (record.turn, record.source_turn, record.n_candidates) == (1, 2, 24)
    assert [(r.item_id, r.rank, r.n_better, r.n_tied) for r in record.ranks] == [(target, 1, 0, 1)]
    assert record.top[:6] == ranked


def test_ties_are_broken_by_the_seeded_generator(setup):
    def first_rank(seed):
        env = setup.new_episode()
        env.reset(seed=seed, options={"target": setup.pool[0].item_id})
        env.step(SEEKER, SeekerReply(text="anything"))
        env.step(RECOMMENDER, Recommendation(question="?", scores=np.zeros(24)))
        target_rank = env.evaluation().evaluations[0].ranks[0]
        assert target_rank.n_tied == 24 and target_rank.n_better == 0
        return target_rank.rank

    ranks = [first_rank(seed) for seed in range(30)]
    assert len(set(ranks)) > 5  # not always the catalog's first item
    assert first_rank(0) == ranks[0]


def test_bad_moves_are_rejected(setup):
    env = setup.new_episode()
    env.reset(seed=0)
    env.step(SEEKER, SeekerReply(text="hi"))
    with pytest.raises(ValueError, match="scores for 24 candidates"):
        env.step(RECOMMENDER, Recommendation(question="?", scores=np.zeros(3)))
    with pytest.raises(ValueError, match="unknown item 'zzz'"):
        env.step(RECOMMENDER, Recommendation(question="?", ranked_ids=["zzz"]))
    with pytest.raises(TypeError, match="a recommender cannot make a SeekerReply move"):
        env.step(RECOMMENDER, SeekerReply(text="hi"))


@pytest.mark.parametrize(("reply", "ending"), [
    (SeekerReply(text="that's it", accept=True), TerminationReason.accepted),
    (SeekerReply(text="bye", quit=True), TerminationReason.seeker_quit),
])
def test_the_environment_names_why_the_task_ended(setup, reply, ending):
    env = setup.new_episode()
    env.reset(seed=0)
    result = env.step(SEEKER, reply)
    assert result.terminated and result.termination is ending


def test_logged_moves_are_re_made_as_the_same_actions(setup):
    seeker_turn = Turn(index=1, role="seeker", text="ok", feedback={"i01": "like"}, metadata={"fact": "x"})
    reply = setup.scripted_action(SEEKER, seeker_turn, TerminationReason.accepted)
    assert (reply.text, dict(reply.feedback), reply.accept, reply.quit) == ("ok", {"i01": "like"}, True, False)
    assert not setup.scripted_action(SEEKER, seeker_turn, TerminationReason.max_turns).accept
    rec_turn = Turn(index=2, role="recommender", text="Price?", items_shown=["i03", "i01"])
    move = setup.scripted_action(RECOMMENDER, rec_turn, None)
    assert (move.question, list(move.ranked_ids)) == ("Price?", ["i03", "i01"])


def test_private_turn_metadata_is_not_shown_to_the_other_role(setup):
    env = setup.new_episode()
    env.reset(seed=0)
    env.step(SEEKER, SeekerReply(text="thai", metadata={"fact": "attr:cuisine=thai"}))
    obs = env.observe(RECOMMENDER)
    assert obs.dialogue[0].metadata == {"opening": True}  # the environment's own note stays
    assert obs.dialogue[1].metadata == {}  # the seeker's private note does not reach the recommender
    env.step(RECOMMENDER, Recommendation(question="Price?", scores=np.zeros(24), metadata={"aspect": "price"}))
    back = env.observe(SEEKER)
    assert back.dialogue[1].metadata == {"fact": "attr:cuisine=thai"}  # own notes visible
    assert back.dialogue[2].metadata == {}
    logged = env.dialogue.transcript()
    assert logged[1].metadata["fact"] == "attr:cuisine=thai" and logged[2].metadata["aspect"] == "price"


def _opaque_catalog_dir(tmp_path):
    """The tiny catalog with opaque review ids (as Yelp's are) and an interactions.jsonl."""
    import hashlib
    import json

    from crsim_testing import make_tiny_catalog

    catalog = make_tiny_catalog()
    rename = {r.id: hashlib.sha1(r.id.encode()).hexdigest()[:10] for r in catalog.reviews}
    catalog.reviews = [r.model_copy(update={"id": rename[r.id]}) for r in catalog.reviews]
    for user in catalog.users:
        user.seen = [s.model_copy(update={"review_id": rename[s.review_id]}) for s in user.seen]
    directory = catalog.save(tmp_path / "opaque")
    lines = [json.dumps({"user_id": r.user_id, "item_id": r.item_id, "value": r.rating}) for r in catalog.reviews]
    (directory / "interactions.jsonl").write_text("\n".join(lines) + "\n")
    return directory


def test_the_recommenders_view_holds_no_trace_of_the_target_pool(tmp_path):
    from environments.catalog import Catalog

    full = Catalog.load(_opaque_catalog_dir(tmp_path))
    setup = SingleTargetSetup(full, target_pool_size=8)
    view = setup.recommender_catalog
    held = {slot.review_id for slot in setup.pool}
    pairs = {(full.review_by_id[slot.review_id].user_id, slot.item_id) for slot in setup.pool}
    # nothing names a withheld review, and nothing leads back to the full catalog on disk
    everything = repr(vars(view)) + "".join(u.model_dump_json() for u in view.users) + \
        "".join(r.model_dump_json() for r in view.reviews) + view.manifest.model_dump_json()
    assert not any(review_id in everything for review_id in held)
    assert view.path is None and not hasattr(view, "withheld")
    assert view.manifest.counts["reviews"] == len(view.reviews) == len(full.reviews) - len(held)
    # users keep their histories except the simulated seekers' own reviews of their targets
    seen = {(u.user_id, s.item_id) for u in view.users for s in u.seen}
    assert not pairs & seen and len(seen) == len({(u.user_id, s.item_id) for u in full.users for s in u.seen}) - len(pairs)
    # the collaborative signal lacks exactly those interactions
    full_matrix, matrix = full.interactions(), view.interactions()
    assert matrix.matrix.nnz == full_matrix.matrix.nnz - len(pairs)
    for user, item in pairs:
        assert full_matrix.matrix[full_matrix.user_index[user], full_matrix.item_index[item]] != 0
        assert matrix.matrix[matrix.user_index[user], matrix.item_index[item]] == 0
    # a pool member is told apart by nothing: its rows look like any other item's
    assert view.fingerprint != full.fingerprint and set(view.item_ids) == set(full.item_ids)


def test_keeps_the_environment_contract(setup):
    from environments.check import check_environment

    check_environment(setup, rounds=3)


def test_a_targets_kind_is_the_mined_kind_it_is_before_the_noun_its_reviews_name():
    # six amps whose reviews say "this amp"; eighteen cables whose reviews name the amp they plug into
    from environments.catalog import Catalog
    from environments.models import CatalogManifest, Item, Review

    items, reviews = [], []
    for i in range(24):
        amp = i < 6
        items.append(Item(id=f"{'a' if amp else 'c'}{i:02d}", title=f"Product {i}"))
        style = ("vintage", "modern")[i % 2]
        texts = ([f"Love this {style} amp.", f"Such a {style} amp.", "The amp is loud.", "Fast shipping."] if amp else
                 ["Love this cable.", "Such a long cable.", f"Plugs into the {style} amp.", "Fast shipping."])
        reviews += [Review(id=f"r{i}-{j}", item_id=items[-1].id, user_id=f"u{j}", rating=5.0, text=t)
                    for j, t in enumerate(texts)]
    setup = SingleTargetSetup(Catalog(CatalogManifest(name="gear", item_noun="products"), items, reviews),
                              target_pool_size=24)
    assert setup._kind(setup.items_by_id["a00"]) == "amp"
    assert setup._kind(setup.items_by_id["c06"]) != "amp"


def test_a_listed_kind_reviewers_never_make_plural_is_not_counted():
    from environments.catalog import Catalog
    from environments.models import CatalogManifest, Item, Review

    items = [Item(id=f"o{i}", title=f"Coat {i}", attributes={"category": "Outerwear" if i < 3 else "Dresses"})
             for i in range(12)]
    texts = ["Warm outerwear for the winter.", "The outerwear fits well.", "Lovely dresses, all of them."]
    reviews = [Review(id=f"r{i}-{j}", item_id=item.id, user_id=f"u{j}", rating=5.0, text=t)
               for i, item in enumerate(items) for j, t in enumerate(texts)]
    setup = SingleTargetSetup(Catalog(CatalogManifest(name="shop", item_noun="products"), items, reviews),
                              target_pool_size=12)
    slots = {slot.item_id: slot for slot in setup.pool}
    assert setup.profile_for(slots["o0"]).kind == "outerwear"
    assert not setup.profile_for(slots["o0"]).kind_countable
    assert setup.profile_for(slots["o5"]).kind_countable  # "dresses": a plural

import dataclasses

import pytest

from environments.catalog import Catalog
from environments.errors import CrsimError
from environments.models import TerminationReason
from environments.shopping.environment import ShoppingSetup
from environments.shopping.views import CustomerMove, SellerMove


def test_moves_reveal_asked_aspects_narrow_the_search_and_end_in_a_purchase(mugs):
    setup = ShoppingSetup(mugs)
    env = setup.new_episode()
    first = env.reset(seed=3, options={"product_id": "m04"})
    customer, seller = first["customer"], first["seller"]
    assert customer.preference.product_id == "m04" and customer.asked == ()
    fields = {f.name for f in dataclasses.fields(seller)}
    assert "preference" not in fields and seller.category == "mugs" and seller.results == 12
    pending = [h.aspect for h in seller.pending]
    assert pending and all(len(h.hints) <= 3 for h in seller.pending)
    env.step("customer", CustomerMove("Hi, I want a mug."))
    env.step("seller", SellerMove("Which one?", asked=(pending[0], "not-planned")))
    assert env.observe("customer").asked == (pending[0],)  # only planned aspects count as asked
    env.step("customer", CustomerMove("What is that?", question=pending[0]))  # nothing expressed: still pending
    assert pending[0] in [h.aspect for h in env.observe("seller").pending]
    while not env.observe("seller").converged:
        todo = [h.aspect for h in env.observe("seller").pending]
        env.step("seller", SellerMove("And these?", asked=tuple(todo)))
        env.step("customer", CustomerMove("Here is what I think.", expressed=tuple(todo)))
    view = env.observe("seller")
    pref = customer.preference
    assert view.candidates and all(setup.shop.satisfies(mugs.item_index[c.id], pref.wanted, pref.unwanted)
                                   for c in view.candidates)
    with pytest.raises(CrsimError, match="not among the converged results"):
        env.step("seller", SellerMove("Try this", recommend="s1"))
    assert env.step("seller", SellerMove("Try this", recommend=view.candidates[0].id)).termination is None
    assert env.observe("customer").recommended.id == view.candidates[0].id
    env.step("customer", CustomerMove("I'll take it", accept=True))
    assert env.step("seller", SellerMove("Bye", close=True)).termination is TerminationReason.purchased
    evaluation = env.evaluation()
    assert evaluation.targets == ["m04"] and evaluation.profile["final_product"] == view.candidates[0].id
    assert evaluation.profile["converged"] and evaluation.profile["searches"] == len(evaluation.profile["plan"]) + 1
    fit = [m.attitude for r in evaluation.evaluations for m in r.mentions]
    assert fit == ["like"] and evaluation.evaluations[-1].item_set.items == [view.candidates[0].id]
    assert evaluation.evaluations[0].n_candidates == 12 > evaluation.evaluations[-1].n_candidates
    # the seller's private notes are hidden from the customer, the environment's own keys too
    assert all(t.metadata == {} for t in env.dialogue.visible_to("customer") if t.role == "seller")


def test_a_seller_that_never_closes_is_stopped(mugs):
    setup = ShoppingSetup(mugs, close_within=2)
    env = setup.new_episode()
    env.reset(seed=0, options={"product_id": "m00"})
    # as if every feature had been answered: the results are m00's family and the plan is done
    env.rows = setup.planner.search(env.preference, {f.aspect: f for f in env.preference.features})
    env.step_now = None
    env.step("seller", SellerMove("This one", recommend=mugs.items[int(env.rows[0])].id))
    env.step("seller", SellerMove("Anything else?"))
    with pytest.raises(CrsimError, match="did not close within 2"):
        env.step("seller", SellerMove("Still here."))


def test_a_catalog_without_shoppable_products_is_one_clear_error(mugs):
    with pytest.raises(CrsimError, match="no product with 2 or more features"):
        ShoppingSetup(Catalog(mugs.manifest, [mugs.item("bad")]))


def test_keeps_the_environment_contract(mugs):
    from environments.check import check_environment

    check_environment(ShoppingSetup(mugs), rounds=3)

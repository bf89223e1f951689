import numpy as np

from environments.shopping.planner import Planner, converged, hints_for, tree_aspects
from environments.shopping.preference import Feature, Interest, Preference, sample_preference
from environments.shopping.products import ShoppingCatalog
from environments.shopping.world import generate_shopping_world


def test_tree_follows_the_preference_and_asks_what_splits(mugs):
    shop = ShoppingCatalog(mugs)
    rows = shop.search("mugs", {}, {})
    pref = Preference(category="mugs", product_id="m00", features=[
        Feature(aspect="color", value="red", interest=Interest.wanted),
        Feature(aspect="material", value="steel", interest=Interest.unwanted)])
    path = tree_aspects(shop, rows, pref, seed=0)
    assert path and set(path) <= {"color", "material", "size"} and len(path) == len(set(path))
    plan, final = Planner(shop, "tree").full_plan(pref, np.random.default_rng(0))
    assert plan.converged and converged(shop, final, pref) and len(final) >= 1
    assert {mugs.items[i].id for i in final} == {"m00", "m06"}  # red and not steel (m03, m09 are steel)
    asked = [a.aspect for step in plan.steps for a in step.aspects]
    assert len(asked) == len(set(asked)) and {"color", "material"} <= set(asked)
    assert hints_for(shop, rows, "size") == ["large", "small"]  # 6 and 5: most frequent first, <= 3


def test_an_aspect_the_product_lacks_is_planned_as_optional(mugs):
    shop = ShoppingCatalog(mugs)
    # m11 has no material; the tree still splits on material, and the customer does not care
    pref = sample_preference(shop, mugs.item_index["m11"], np.random.default_rng(0))
    assert "material" not in {f.aspect for f in pref.features}
    assert pref.feature("material").interest is Interest.optional and pref.feature("material").value == ""
    pref = pref.model_copy(update={"features": [Feature(aspect="color", value="blue", interest=Interest.unwanted)]})
    plan, final = Planner(shop, "tree").full_plan(pref, np.random.default_rng(1))
    planned = {a.aspect: a for step in plan.steps for a in step.aspects}
    assert plan.converged and all(shop.satisfies(int(i), {}, {"color": "blue"}) for i in final)
    for aspect in set(planned) - {"color"}:
        assert planned[aspect].interest is Interest.optional and planned[aspect].value == ""


def test_tree_needs_fewer_aspects_than_random_order_on_a_world():
    catalog = generate_shopping_world("electronics", n_products=600, seed=0)
    shop = ShoppingCatalog(catalog)
    tree, rand = Planner(shop, "tree"), Planner(shop, "random")
    turns = []
    for seed in range(25):
        rng = np.random.default_rng(seed)
        pref = sample_preference(shop, shop.pool[int(rng.integers(len(shop.pool)))], rng)
        plans = [p.full_plan(pref, np.random.default_rng(seed)) for p in (tree, rand)]
        for plan, final in plans:
            assert plan.converged and all(shop.satisfies(int(i), pref.wanted, pref.unwanted) for i in final)
            assert plan.searches == len(plan.steps) + 1
        assert plans[0][1].tolist() == plans[1][1].tolist()  # same family either way
        turns.append((plans[0][0].turns, plans[1][0].turns))
    tree_turns, random_turns = np.array(turns).T
    assert tree_turns.mean() < random_turns.mean()

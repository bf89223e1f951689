import numpy as np

from environments.shopping.domains import DOMAINS
from environments.shopping.preference import Interest, sample_preference
from environments.shopping.products import ShoppingCatalog, count_features, features
from environments.shopping.world import generate_shopping_world


def test_worlds_have_many_categories_with_their_own_aspects_and_drop_thin_products():
    for name, domain in DOMAINS.items():
        catalog = generate_shopping_world(name, n_products=400, seed=1)
        assert len(catalog.items) + catalog.manifest.extra["dropped"] == 400
        assert all(count_features(item) >= 2 for item in catalog.items)
        by_category: dict[str, set[str]] = {}
        for item in catalog.items:
            by_category.setdefault(item.category, set()).update(item.attributes)
        assert len(by_category) == len(domain.categories) >= 6
        own = [aspects - {"brand", "price", "customer_review"} for aspects in by_category.values()]
        assert len({frozenset(a) for a in own}) == len(own)  # each category has its own aspect set
    again = generate_shopping_world("beauty", n_products=400, seed=1)
    assert [i.model_dump() for i in again.items] == [i.model_dump() for i in generate_shopping_world(
        "beauty", n_products=400, seed=1).items]
    assert again.fingerprint != generate_shopping_world("beauty", n_products=400, seed=2).fingerprint


def test_missing_and_empty_features_are_absent_and_thin_rows_are_not_shoppable(mugs):
    shop = ShoppingCatalog(mugs)
    assert features(mugs.item("m10")) == {"color": ("blue",), "material": ("steel",)}
    assert "material" not in features(mugs.item("m11"))
    assert mugs.item_index["bad"] not in shop.pool and mugs.item_index["m10"] in shop.pool
    assert shop.category_values("mugs", "material") == ["glass", "steel"]
    rows = shop.search("mugs", {"color": "red"}, {"material": "glass"})
    assert [mugs.items[i].id for i in rows] == ["m03", "m09"]  # red, not glass (a red glass mug is out)
    # unwanted on an aspect a product lacks keeps it; wanted on it drops it
    assert "m11" in {mugs.items[i].id for i in shop.search("mugs", {}, {"material": "steel"})}
    assert "m11" not in {mugs.items[i].id for i in shop.search("mugs", {"material": "steel"}, {})}
    assert [mugs.items[i].id for i in shop.search("shirts", {}, {})] == ["s1", "s2"]


def test_preferences_follow_the_product_and_replace_unwanted_values(mugs):
    shop = ShoppingCatalog(mugs)
    seen = {Interest.wanted: 0, Interest.unwanted: 0, Interest.optional: 0}
    mug_rows = [row for row in shop.pool if shop.categories[row] == "mugs"]
    for seed in range(60):
        row = mug_rows[seed % len(mug_rows)]
        preference = sample_preference(shop, row, np.random.default_rng(seed))
        have = features(mugs.items[row])
        assert preference.category == "mugs" and preference.product_id == mugs.items[row].id
        assert {f.aspect for f in preference.features} == set(have)
        for feature in preference.features:
            seen[feature.interest] += 1
            if feature.interest is Interest.wanted:
                assert feature.value in have[feature.aspect]
            elif feature.interest is Interest.unwanted:
                assert feature.value not in have[feature.aspect]
                assert feature.value in shop.category_values("mugs", feature.aspect)
            else:
                assert feature.value == ""
        assert shop.satisfies(row, preference.wanted, preference.unwanted)  # p fits its own preference
    assert all(count > 10 for count in seen.values())
    one = sample_preference(shop, shop.pool[0], np.random.default_rng(5))
    assert one == sample_preference(shop, shop.pool[0], np.random.default_rng(5))

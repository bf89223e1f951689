import numpy as np

from environments.search import AttributeFilter


def ids(catalog, mask):
    return {item_id for item_id, keep in zip(catalog.item_ids, mask) if keep}


def test_single_aspect_is_case_insensitive(catalog):
    assert ids(catalog, AttributeFilter({"cuisine": ["Vietnamese", " MEXICAN "]}).mask(catalog)) == {
        "pho", "taqueria"}


def test_list_values_need_one_allowed_value_and_aspects_combine(catalog):
    mask = AttributeFilter({"good_for": ["kids"], "price_range": ["$"]}).mask(catalog)
    assert mask.dtype == bool and mask.shape == (len(catalog.items),)
    assert ids(catalog, mask) == {"taqueria", "burger", "athens"}


def test_missing_aspect_fails_and_empty_allowed_list_constrains_nothing(catalog):
    assert not AttributeFilter({"parking": ["yes"]}).mask(catalog).any()
    empty = AttributeFilter({"cuisine": []})
    assert not empty and empty.mask(catalog).all()


def test_mask_is_cached_per_fingerprint_but_returned_as_a_copy(catalog):
    flt = AttributeFilter({"outdoor_seating": "yes"})
    first = flt.mask(catalog)
    first[:] = False
    second = flt.mask(catalog)
    assert second.sum() == 6 and flt._masks  # cached, untouched by the caller's edit
    view = catalog.without_reviews(["pho-r0"])
    assert np.array_equal(flt.mask(view), second) and len(flt._masks) == 2


def test_filters_compare_by_constraints():
    assert AttributeFilter({"cuisine": ["Thai"]}) == AttributeFilter({"cuisine": "thai"})
    assert len({AttributeFilter({"cuisine": ["thai"]}), AttributeFilter({"cuisine": ["THAI"]})}) == 1


def test_exclusions_reject_any_unwanted_value_and_pass_items_without_the_aspect(catalog):
    everything = set(catalog.item_ids)
    no_mexican = AttributeFilter({}, excluded={"cuisine": ["MEXICAN"]})
    assert no_mexican and ids(catalog, no_mexican.mask(catalog)) == everything - {"taqueria"}
    kids = ids(catalog, AttributeFilter({"good_for": ["kids"]}).mask(catalog))
    not_kids = ids(catalog, AttributeFilter({}, excluded={"good_for": "kids"}).mask(catalog))
    assert not_kids == everything - kids  # one excluded value among a list rejects the item
    # nobody has parking: excluding a value of an aspect no item holds keeps every item
    assert AttributeFilter({}, excluded={"parking": ["yes"]}).mask(catalog).all()
    both = AttributeFilter({"price_range": ["$"]}, excluded={"cuisine": ["mexican"]})
    assert ids(catalog, both.mask(catalog)) == ids(catalog, AttributeFilter({"price_range": "$"}).mask(catalog)) - {
        "taqueria"}
    assert not AttributeFilter({}, excluded={"cuisine": ["", " "]})  # empty exclusions constrain nothing
    assert both != AttributeFilter({"price_range": ["$"]}) and "excluded" in repr(both)

"""The built-in domain specs: enough aspects and values, varied wording, clear errors."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from environments.worlds import DOMAINS, generate_world, get_domain, load_world
from environments.worlds.domain import ValueSpec, names_value


def test_both_domains_registered() -> None:
    assert set(DOMAINS) == {"restaurant", "movie"}
    assert DOMAINS["restaurant"].item_noun == "restaurants"
    assert DOMAINS["movie"].item_noun == "movies"


@pytest.mark.parametrize("domain", sorted(DOMAINS))
def test_domain_shape(domain: str) -> None:
    spec = DOMAINS[domain]
    assert len(spec.aspects) >= 7
    assert len(spec.chatter) >= 25
    for aspect in spec.aspects:
        assert len(aspect.values) >= 3, aspect.name
        for value in aspect.values:
            assert len(value.positive) >= 3 and len(value.negative) >= 2 and len(value.phrases) >= 3
            plain = [p for p in value.phrases if not names_value(p, value.value)]
            assert 3 * len(plain) >= len(value.phrases), value.value


def test_expected_aspects() -> None:
    restaurant = DOMAINS["restaurant"].by_aspect
    assert len(restaurant["cuisine"].values) >= 12
    assert len(restaurant["price_range"].values) == 4
    assert restaurant["dietary_options"].multi_valued
    assert {"vegan", "gluten-free"} <= set(restaurant["dietary_options"].by_value)
    movie = DOMAINS["movie"].by_aspect
    assert movie["genre"].multi_valued and len(movie["genre"].values) >= 10
    assert movie["themes"].multi_valued and len(movie["themes"].values) >= 8
    assert not movie["era"].multi_valued


def test_names_value_uses_word_stems() -> None:
    assert names_value("Italy-inspired handmade pasta", "italian")
    assert not names_value("wood-fired pizza and handmade gnocchi", "italian")
    assert names_value("a celiac-safe, gluten free menu", "gluten-free")


def test_value_spec_rejects_keyword_only_phrases() -> None:
    with pytest.raises(ValidationError, match="avoid the canonical word"):
        ValueSpec(value="thai", positive=["A {p}.", "B {p}.", "C {p}."], negative=["D {p}.", "E {p}."],
                  phrases=["thai food", "thai curry", "thai noodles"])
    with pytest.raises(ValidationError, match="once"):
        ValueSpec(value="thai", positive=["No placeholder.", "B {p}.", "C {p}."], negative=["D {p}.", "E {p}."],
                  phrases=["green curry", "pad see ew", "thai food"])


def test_unknown_domain_lists_known_ones(tmp_path) -> None:
    for call in (lambda: get_domain("pizza"), lambda: generate_world("pizza", n_items=5, n_users=5)):
        with pytest.raises(ValueError, match="movie, restaurant"):
            call()
    with pytest.raises(ValueError, match="movie, music, restaurant"):  # every world, not only review domains
        load_world("pizza", cache_dir=tmp_path)
    with pytest.raises(ValueError, match="without a review domain spec"):
        get_domain("music")

"""Which words a catalog's items share, and what kind of product an item is."""

from __future__ import annotations

from environments.catalog import Catalog
from environments.models import CatalogManifest, Item, Review
from environments.search.vocabulary import CatalogVocabulary


def _catalog() -> Catalog:
    items, reviews = [], []
    kinds = ["tuner"] * 12 + ["strap"] * 18 + [k for k in ("cable", "amp", "stand", "pick", "pedal") for _ in range(10)]
    for n, kind in enumerate(kinds):
        items.append(Item(id=f"i{n}", title=f"Thing {n}"))
        texts = [f"The {kind} is great and easy to use. The {kind} works.", f"I like the {kind}. Good price."]
        if n == 0:
            texts.append("The lifeproof case is a gem. The tuner is bright.")
        reviews += [Review(id=f"r{n}-{k}", item_id=f"i{n}", user_id=f"u{k}", rating=5.0, text=t)
                    for k, t in enumerate(texts)]
    items.append(Item(id="meta", title="Clip-on", attributes={"categories": ["Accessories", "Tuners"]}))
    return Catalog(CatalogManifest(name="gear"), items, reviews)


def test_shared_words_are_those_many_items_use():
    vocabulary = CatalogVocabulary.of(_catalog())
    shared = vocabulary.shared_words()
    assert {"tuner", "strap", "price", "easy"} <= set(shared) and shared["price"] == 80
    assert "lifeproof" not in shared and "gem" not in shared  # one item's own words


def test_kind_is_the_everyday_noun_the_reviews_name_or_the_metadata_category():
    catalog = _catalog()
    vocabulary = CatalogVocabulary.of(catalog)
    texts = {item.id: [r.text for r in catalog.reviews_by_item.get(item.id, [])] for item in catalog.items}
    assert vocabulary.kind(catalog.item("i3"), texts["i3"]) == "tuner"
    assert vocabulary.kind(catalog.item("i20"), texts["i20"]) == "strap"
    assert vocabulary.kind(catalog.item("meta"), []) == "tuners"
    assert vocabulary.kind(catalog.item("i0"), ["Nice."]) is None  # nothing named twice: no guess


def test_a_name_reviewers_capitalise_is_never_everyday_nor_a_kind():
    items, reviews = [], []
    for n in range(30):
        items.append(Item(id=f"i{n}", title=f"Thing {n}"))
        texts = ["These strings from Fender sound bright.", "I love my strings, the fender ones too."]
        reviews += [Review(id=f"r{n}-{k}", item_id=f"i{n}", user_id=f"u{k}", rating=5.0, text=t)
                    for k, t in enumerate(texts)]
    vocabulary = CatalogVocabulary.of(Catalog(CatalogManifest(name="gear"), items, reviews))
    assert "fender" in vocabulary.names and "strings" not in vocabulary.names
    assert "fender" not in vocabulary.shared_words() and "strings" in vocabulary.shared_words()


def test_a_kind_reviewers_never_make_plural_is_not_counted():
    from environments.search.vocabulary import CatalogVocabulary

    vocabulary = CatalogVocabulary({"cable": 40, "cables": 20, "swim": 50, "swims": 2, "dresses": 30}, 100)
    assert vocabulary.countable("cable") and vocabulary.countable("dresses")
    assert not vocabulary.countable("swim") and not vocabulary.countable("outerwear")


def test_the_article_follows_how_the_first_word_is_said():
    from environments.search.vocabulary import indefinite_article

    said = {phrase: indefinite_article(phrase) for phrase in (
        "amp", "unique design", "uneven hem", "usb cable", "one-piece", "hour", "tuner", "Umbrella stand",
        "xlr input", "mp3 player", "dvd", "sd card", "strap")}
    assert said == {"amp": "an", "unique design": "a", "uneven hem": "an", "usb cable": "a", "one-piece": "a",
                    "hour": "an", "tuner": "a", "Umbrella stand": "an", "xlr input": "an", "mp3 player": "an",
                    "dvd": "a", "sd card": "an", "strap": "a"}


def test_word_pairs_are_counted_per_item_within_a_clause():
    vocabulary = CatalogVocabulary.of(_catalog())
    pairs = vocabulary.shared_pairs()
    assert pairs["good price"] == 80 and pairs["strap works"] == 18  # per item, however many reviews write it
    assert "lifeproof case" not in pairs  # one item's
    assert "great easy" not in pairs  # "great and easy": not next to each other
    assert not any(p.split()[0] == "tuner" and p.split()[1] == "bright" for p in pairs)


def test_a_phrase_is_plural_by_its_head():
    from environments.search.vocabulary import is_plural_phrase

    assert is_plural_phrase("some tight sleeves") and is_plural_phrase("places with outdoor seats")
    assert not is_plural_phrase("a local spot off the main streets") and not is_plural_phrase("a pair of shoes")
    assert not is_plural_phrase("cheap") and not is_plural_phrase("some outerwear")

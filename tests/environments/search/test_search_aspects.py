"""Aspects mined from reviews: what counts as an aspect, its values per item, grouping, the cache."""

from __future__ import annotations

import numpy as np
import pytest

from environments.catalog import Catalog
from environments.models import CatalogManifest, Item, Review, Role, Turn
from environments.search import aspects as aspects_module
from environments.search.aspect_text import find_mentions, noun_positions, sentences, term_index, tokens
from environments.search.aspects import AspectVocabulary, group_terms, mine_aspects
from environments.search.word_stats import MinerSettings

SCENTS = ["lavender", "citrus", "vanilla"]


def _catalog() -> Catalog:
    """Twelve soaps whose reviews talk about scent, lather and the bottle, plus chatter."""
    items, reviews = [], []
    for i in range(12):
        scent = SCENTS[i % 3]
        items.append(Item(id=f"s{i:02d}", title=f"Soap {i}"))
        texts = [f"The {scent} scent is lovely. My wife uses it every day.",
                 f"Great {scent} scent and the lather is rich. Arrived quickly.",
                 "The bottle is sturdy. I bought it for my sister." if i % 2 else "The lather is thin.",
                 "The scent is not strong, I wish it lasted." if i == 0 else "Works fine."]
        reviews += [Review(id=f"r{i}-{j}", item_id=f"s{i:02d}", user_id=f"u{j}", rating=5.0, text=t)
                    for j, t in enumerate(texts)]
    return Catalog(CatalogManifest(name="soaps", item_noun="products"), items, reviews)


def test_sentences_tokens_and_noun_positions():
    assert sentences("Works as advertised.I did not expect that! Ok") == ["Works as advertised.",
                                                                          "I did not expect that!"]
    words = tokens("The lavender scent is light, the bottle is sturdy")
    assert "," in words  # clause punctuation is kept: phrases never run across it
    heads = {words[head] for _, head in noun_positions(words)}
    assert {"scent", "bottle"} <= heads and "lavender" not in heads
    verbish = tokens("The mic picks up my voice")
    assert [verbish[h] for _, h in noun_positions(verbish)] == ["mic", "voice"]  # "picks" takes an object


def test_mentions_keep_descriptors_and_doubt():
    index = term_index({"scent": "scent", "smell": "smell", "battery life": "battery"})
    plain = find_mentions(tokens("The ear cushions are fine and the lavender scent is light and fresh"), index)
    assert [(m.term, m.predicates, m.doubtful) for m in plain] == [("scent", ("light", "fresh"), False)]
    assert plain[0].modifiers == ("lavender",)
    assert find_mentions(tokens("Battery life is rock solid"), index)[0].values == ("rock solid",)
    assert find_mentions(tokens("I wish the scent lasted longer"), index)[0].doubtful
    assert find_mentions(tokens("The scent is not strong"), index)[0].doubtful
    assert find_mentions(tokens("It is quieter than the scent of roses"), index)[0].doubtful
    sense = find_mentions(tokens("It smells fresh"), index)
    assert [(m.aspect, m.values) for m in sense] == [("smell", ("fresh",))]  # a sense verb stands for its noun
    assert find_mentions(tokens("It smells like roses"), index) == []


def test_mined_aspects_values_and_mentions():
    catalog = _catalog()
    vocabulary = mine_aspects(catalog, persist=False)
    names = vocabulary.names
    assert {"scent", "lather", "bottle"} <= set(names)
    assert not {"wife", "sister", "uses", "products"} & set(names)  # people, verbs, the item noun
    scent = vocabulary.aspect("scent")
    assert scent is not None and set(SCENTS) <= set(scent.values) and scent.n_items == 12
    for i, item in enumerate(catalog.items):
        assert vocabulary.values_of("scent", item.id)[0] == SCENTS[i % 3]
    # "not strong" sits next to a negation: never a value
    assert "strong" not in scent.values and "strong" not in vocabulary.values_of("scent", "s00")
    # "sturdy" is the bottles' only value: no choice to offer, so it tells no bottle apart
    assert vocabulary.values_of("bottle", "s00") is None and vocabulary.values_of("bottle", "s01") == ()
    assert vocabulary.mentions["scent"]["s03"] == 2 and vocabulary.review_counts["s03"] == 4
    assert vocabulary.presence("scent", "s03", 10) > 0.99 and vocabulary.presence("bottle", "s00", 10) == 0.0
    assert 0 < vocabulary.presence("bottle", "s01", 1) < 0.5


class _TableEncoder:
    """Vectors from a table: "smell" and "scent" point the same way, everything else apart."""

    model_id = "table"

    def encode(self, texts):
        axis = {"smell": 0, "scent": 0, "aroma": 0}
        out = np.zeros((len(texts), 64), dtype=np.float32)
        for row, text in enumerate(texts):
            out[row, axis.get(text, 1 + row % 63)] = 1.0
        return out


def test_terms_group_by_stem_and_by_meaning():
    coverage = {"smell": 9, "smells": 2, "scent": 5, "aroma": 1, "bottle": 4}
    assert group_terms(list(coverage), coverage, None, 0.6) == [["smell", "smells"], ["scent"], ["bottle"], ["aroma"]]
    grouped = group_terms(list(coverage), coverage, _TableEncoder(), 0.6)
    assert grouped[0] == ["smell", "scent", "smells", "aroma"] and ["bottle"] in grouped


def test_cached_per_catalog_view(tmp_path, monkeypatch):
    catalog = _catalog()
    first = mine_aspects(catalog, cache_dir=tmp_path)
    assert len(list((tmp_path / "aspects").glob("*.json"))) == 1

    def fail(*args, **kwargs):
        raise AssertionError("mined again")

    monkeypatch.setattr(aspects_module, "_mine", fail)
    assert mine_aspects(catalog, cache_dir=tmp_path) == first  # loaded, not mined
    with pytest.raises(AssertionError, match="mined again"):
        mine_aspects(catalog.without(reviews=["r0-0"]), cache_dir=tmp_path)  # a view has its own entry
    with pytest.raises(AssertionError, match="mined again"):
        mine_aspects(catalog, cache_dir=tmp_path, settings=MinerSettings(max_aspects=3))
    assert AspectVocabulary.model_validate_json(first.model_dump_json()) == first


def test_mining_is_deterministic():
    catalog = _catalog()
    assert mine_aspects(catalog, persist=False).model_dump_json() == mine_aspects(catalog, persist=False).model_dump_json()


def _headphones() -> Catalog:
    """Twelve headphones: reviews call the sound bright (even items) or warm (odd), "bright and clear"
    in one breath; a third of the cables' reviews name a usb and a monster cable together (frequent, but
    two things one cable has), the others' call it braided or coiled."""
    items, reviews = [], []
    for i in range(12):
        tone = "bright" if i % 2 == 0 else "warm"
        items.append(Item(id=f"h{i:02d}", title=f"Headphones {i}"))
        texts = [f"The sound is {tone}. I use them daily.",
                 f"Really {tone} sound for the money." + (" The sound is bright and clear." if i % 2 == 0 else ""),
                 "The usb cable is long, and the monster cable works too. The usb cable charges fast."
                 if i % 3 == 0 else f"The {'braided' if i % 3 == 1 else 'coiled'} cable is long.",
                 "I replaced the monster cable with the usb cable. The pads are soft." if i % 3 == 0 else "Fine."]
        reviews += [Review(id=f"r{i}-{j}", item_id=f"h{i:02d}", user_id=f"u{j}", rating=5.0, text=t)
                    for j, t in enumerate(texts)]
    return Catalog(CatalogManifest(name="headphones", item_noun="products"), items, reviews)


def test_only_alternatives_are_offered_together():
    vocabulary = mine_aspects(_headphones(), persist=False)
    sound, cable = vocabulary.aspect("sound"), vocabulary.aspect("cable")
    assert sound is not None and cable is not None
    assert ("bright", "warm") in sound.alternatives or ("warm", "bright") in sound.alternatives
    assert not {("bright", "clear"), ("clear", "bright")} & set(sound.alternatives)  # said together: not a choice
    assert not {("usb", "monster"), ("monster", "usb")} & set(cable.alternatives)  # both on the same cables
    assert vocabulary.values_of("cable", "h00") == ()  # no value that is one side of a choice
    assert set(sound.values) >= {"bright", "warm"}


async def test_clarify_never_asks_usb_or_monster():
    from agents.steps.recommender.clarify import ClarifyInput, ClarifyStep

    catalog = _headphones()
    vocabulary = mine_aspects(catalog, persist=False)
    step = ClarifyStep()
    asked: list[str] = []
    questions = []
    for turn in range(1, 4):
        out = await step.run(ClarifyInput([], catalog.items, asked, catalog.item_noun, turn, (), vocabulary))
        questions.append(out.question)
        asked += [out.aspect] if out.aspect else []
    assert not any("usb" in q and "monster" in q for q in questions)
    assert any("bright" in q and "warm" in q for q in questions)


def _amps_and_cables() -> Catalog:
    """Six amps (vintage or modern) and eighteen cables (black or white) whose reviews
    name the amp they plug into, a quarter of their reviews each."""
    items, reviews = [], []
    for i in range(24):
        amp = i < 6
        items.append(Item(id=f"{'a' if amp else 'c'}{i:02d}", title=f"Product {i}"))
        if amp:
            style = ("vintage", "modern")[i % 2]
            texts = [f"Love this {style} amp.", f"Such a {style} amp.", "The amp is loud.", "Fast shipping."]
        else:
            style = ("black", "white")[i % 2]
            texts = [f"Love this {style} cable.", f"Such a {style} cable.",
                     f"Plugs into the {('vintage', 'modern')[i % 2]} amp.", "Fast shipping."]
        reviews += [Review(id=f"r{i}-{j}", item_id=items[-1].id, user_id=f"u{j}", rating=5.0, text=t)
                    for j, t in enumerate(texts)]
    return Catalog(CatalogManifest(name="gear", item_noun="products"), items, reviews)


def test_a_kind_of_product_is_an_aspect_of_its_own_items_only():
    vocabulary = mine_aspects(_amps_and_cables(), persist=False)
    amp, cable = vocabulary.aspect("amp"), vocabulary.aspect("cable")
    assert amp is not None and amp.kind and set(vocabulary.mentions["amp"]) == {f"a{i:02d}" for i in range(6)}
    assert vocabulary.values_of("amp", "c06") is None  # the cable's reviews name an amp: not the cable's
    assert set(amp.values) == {"vintage", "modern"}
    assert cable is not None and not cable.kind  # most of the catalog: what the shop sells, no kind among others
    unbounded = mine_aspects(_amps_and_cables(), persist=False, settings=MinerSettings(kind_item_share=1.0))
    assert not unbounded.aspect("amp").kind and "c06" in unbounded.mentions["amp"]


async def test_clarify_asks_about_a_kind_only_once_it_is_named():
    from agents.steps.recommender.clarify import ClarifyInput, ClarifyStep

    catalog = _amps_and_cables()
    vocabulary = mine_aspects(catalog, persist=False)

    async def aspects_asked(said: str) -> list[str]:
        step, asked = ClarifyStep(), []
        dialogue = [Turn(index=0, role=Role.seeker, text=said)]
        for turn in range(1, 4):
            out = await step.run(ClarifyInput(dialogue, catalog.items, asked, catalog.item_noun, turn, (), vocabulary))
            asked += [out.aspect] if out.aspect else []
        return asked

    assert "amp" not in await aspects_asked("I need something for my band.")
    assert "amp" in await aspects_asked("I need an amp.")  # named, with values to choose: "vintage or modern?"
    assert "amp" in await aspects_asked("Looking for some amps.")  # named in the plural
    assert "amp" not in await aspects_asked("I need a vintage amp.")  # a value said settles it


def test_a_kind_the_metadata_lists_is_its_items_aspect():
    """Dresses' reviews name the pants they go with as often as pants' reviews do: by the
    reviews alone "pants" is no kind; the listing says which items are pants."""
    items, reviews = [], []
    for i in range(20):
        pants = i < 4
        items.append(Item(id=f"p{i:02d}", title=f"Piece {i}",
                          attributes={"categories": ["Clothing", "Pants" if pants else "Dresses"]}))
        fabric = ("linen", "denim")[i % 2]
        texts = [f"Love these {fabric} pants." if pants else f"Love this {fabric} dress, great with the black pants.",
                 f"Such a {fabric} dress." if not pants else "Fast shipping.", "The fabric is soft.", "Runs small."]
        reviews += [Review(id=f"r{i}-{j}", item_id=f"p{i:02d}", user_id=f"u{j}", rating=5.0, text=t)
                    for j, t in enumerate(texts)]
    catalog = Catalog(CatalogManifest(name="closet", item_noun="products"), items, reviews)
    vocabulary = mine_aspects(catalog, persist=False)
    pants = vocabulary.aspect("pants")
    assert pants is not None and pants.kind
    assert set(vocabulary.mentions["pants"]) == {f"p{i:02d}" for i in range(4)}
    unlisted = Catalog(catalog.manifest, [item.model_copy(update={"attributes": {}}) for item in items], reviews)
    assert not mine_aspects(unlisted, persist=False).aspect("pants").kind  # the reviews' rule alone: no kind


def test_an_item_is_of_the_mined_kind_whose_own_items_it_is():
    vocabulary = mine_aspects(_amps_and_cables(), persist=False)
    assert vocabulary.kind_of("a00") == "amp"
    assert vocabulary.kind_of("c06") is None  # its reviews name an amp, but it is no amp

"""The tagger's noun check: words that stand like nouns but are not, read in their sentences."""

from __future__ import annotations

from environments.catalog import Catalog
from environments.models import CatalogManifest, Item, Review
from environments.search.aspects import mine_aspects
from environments.search.parsing import noun_shares, sample_sentences, tags


def test_noun_shares_tell_a_noun_from_a_verb_and_an_adverb():
    texts = ["The strap came loose after a week. The strap is thick.",
             "We went there instead. The strap feels soft.",
             "It came in a box. The box is small."]
    shares = noun_shares(texts, {"strap", "came", "instead", "box", "absent"})
    assert shares["strap"] == 1.0 and shares["box"] == 1.0
    assert shares["came"] == 0.0 and shares["instead"] == 0.0
    assert "absent" not in shares  # never met: no share, the caller keeps what it cannot judge


def test_sample_sentences_stops_at_the_sample_and_skips_long_ones():
    texts = ["The strap is thick. The strap is soft.", "The strap is long.",
             "The strap " + "really " * 30 + "is long."]
    assert sample_sentences(texts, {"strap"}, per_word=2) == ["The strap is thick.", "The strap is soft."]
    assert sample_sentences(texts[2:], {"strap"}, per_word=2) == []  # over MAX_SAMPLE_WORDS


def test_the_miner_drops_a_verb_that_stands_where_nouns_stand():
    # "the strap came loose": by position alone "came" heads a noun phrase as often as "strap"
    items, reviews = [], []
    for i in range(10):
        items.append(Item(id=f"b{i}", title=f"Bag {i}"))
        color = ("black", "brown")[i % 2]
        texts = [f"The {color} strap came loose. The strap is {('thick', 'thin')[i % 2]}.",
                 "The zipper came apart. The zipper is sturdy.", f"The {color} leather came scratched."]
        reviews += [Review(id=f"r{i}-{j}", item_id=f"b{i}", user_id=f"u{j}", rating=4.0, text=t)
                    for j, t in enumerate(texts)]
    catalog = Catalog(CatalogManifest(name="bags", item_noun="products"), items, reviews)
    names = {term for aspect in mine_aspects(catalog, persist=False).aspects for term in aspect.terms}
    assert "strap" in names and "zipper" in names
    assert "came" not in names


def test_the_tagger_loads_without_torch_and_torch_still_imports_after():
    # thinc would import torch only to offer layers the tagger does not use; hidden while spaCy loads
    import subprocess
    import sys

    code = ("import sys; from environments.search.parsing import tagger; tagger(); "
            "assert 'torch' not in sys.modules; import torch; print(float(torch.ones(2).sum()))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "2.0"


def test_tags_read_an_already_split_sentence_word_by_word():
    words = ["the", "strings", "held", "up", "and", "the", "sound", "is", "warm"]
    tagged = tags(words)
    assert len(tagged) == len(words)
    assert tagged[1] == "NOUN" and tagged[2] == "VERB" and tagged[6] == "NOUN" and tagged[8] == "ADJ"
    assert tags([]) == ()

"""Review facts: what the seeker can say about its target from reviews, in its own words."""

from __future__ import annotations

import re

from agents.steps.seeker.review_facts import facts_from_reviews
from environments.search.aspect_text import sentences

REVIEWS = (
    "The ear cushions are soft and plush. Arrived two days early.",
    "Battery life is long enough for two flights. The ear cushions are soft.",
    "Plush memory foam cushions, very comfy. I wish the battery lasted longer.",
    "The bass is deep and punchy. The headband is not comfortable.",
    "Deep bass, great for the gym. The red color is bold.",
)


def _normal(text: str) -> str:
    return " " + re.sub(r"[^a-z0-9]+", " ", text.lower()).strip() + " "


def test_facts_paraphrase_and_never_quote_a_review_sentence():
    facts = facts_from_reviews(REVIEWS)
    quoted = [_normal(s) for review in REVIEWS for s in sentences(review) if len(s.split()) >= 3]
    assert len(facts) >= 4
    for fact in facts:
        assert not any(q in _normal(fact.utterance) for q in quoted), fact.utterance
        assert fact.aspect and fact.key.startswith(f"review:{fact.aspect}=")
    assert len({f.aspect for f in facts}) == len(facts)  # one aspect per fact, one fact per aspect
    said = " ".join(f.utterance.lower() for f in facts)
    assert "soft" in said and "deep bass" in said and "long" in said  # what most of them say, kept
    # the cushions (three reviews) come before the colour (one review)
    aspects = [f.aspect for f in facts]
    assert aspects.index("cushions") < aspects.index("color")


def test_doubtful_mentions_are_not_wishes():
    said = " ".join(f.utterance.lower() for f in facts_from_reviews(REVIEWS))
    assert "comfortable" not in said  # "not comfortable"
    assert "longer" not in said  # "I wish the battery lasted longer"
    only_doubt = facts_from_reviews(["The strap is not comfortable. I wish the battery lasted longer."])
    assert only_doubt == []


def test_a_vocabulary_names_the_aspects():
    facts = facts_from_reviews(["The lavender scent is lovely.", "It smells fresh and clean."],
                               aspects={"scent": "smell", "smell": "smell", "fragrance": "smell"})
    assert [f.aspect for f in facts] == ["smell"]  # both reviews, one aspect
    assert facts[0].match_text.startswith("smell:")


def test_a_sentence_with_the_template_shape_is_still_not_quoted():
    # "The ear cushions are soft and plush." is what "Ideally the X is Y" would say: another wording is used
    facts = facts_from_reviews(["The ear cushions are soft and plush."] * 3)
    assert len(facts) == 1
    assert "the ear cushions are soft and plush" not in _normal(facts[0].utterance)


def test_deterministic_and_limited():
    first = facts_from_reviews(REVIEWS, limit=3)
    assert first == facts_from_reviews(REVIEWS, limit=3) and len(first) == 3
    assert facts_from_reviews([]) == [] and facts_from_reviews(["Great!", ""]) == []


def _agreement(domain: str) -> tuple[int, int]:
    """(agreeing, traced) facts over a small world's items: a fact agrees when every review
    sentence it could come from (chatter aside) is labelled as praising, or hedging about, a
    value the item truly has, or names one of its signatures."""
    from environments.search.aspect_text import tokens
    from environments.worlds import generate_world

    world = generate_world(domain, n_items=120, n_users=150, seed=1)
    labels = {truth.review_id: truth.sentences for truth in world.reviews}
    truth = {t.item_id: t for t in world.items}  # the catalog shows only part of the attributes
    agree = traced = 0
    for item in world.catalog.items:
        positive = sorted((r for r in world.catalog.reviews_by_item.get(item.id, []) if r.rating >= 4),
                          key=lambda r: (-r.rating, -r.helpful_votes, r.id))[:10]
        sources = [s for r in positive for s in labels[r.id]]
        for fact in facts_from_reviews([r.text for r in positive]):
            words = set(fact.match_text.split(":", 1)[1].split("(")[0].split())
            candidates = [s for s in sources if words <= set(tokens(s.text)) and s.kind != "chatter"]
            if not candidates:
                continue  # said through a sense verb ("smells"): no sentence has the noun
            traced += 1
            agree += all(s.signature in truth[item.id].signatures if s.kind == "signature" else
                         s.polarity >= 0 and s.aspect and s.value in _values(truth[item.id].attributes.get(s.aspect))
                         for s in candidates)
    return agree, traced


def _values(value: str | list[str] | None) -> list[str]:
    return [value] if isinstance(value, str) else list(value or [])


def test_facts_agree_with_the_latent_truth_of_a_world():
    for domain in ("restaurant", "movie"):
        agree, traced = _agreement(domain)
        assert traced >= 300, domain
        assert agree / traced >= 0.9, (domain, agree, traced)


def test_with_shared_vocabulary_only_everyday_words_are_said():
    """On a real catalog a term or descriptor few items use is the target's own: never said."""
    shared = {w: 50 for w in "ear cushions soft plush bass deep punchy battery life long headband".split()}
    facts = facts_from_reviews(REVIEWS, shared=shared)
    said = " ".join(f.utterance.lower() + " " + f.match_text.lower() for f in facts)
    assert facts and "soft" in said
    for rare in ("memory", "foam", "gym", "red", "bold", "color"):
        assert rare not in said, rare


def test_aspects_many_items_share_come_first_with_shared_vocabulary():
    common = {w: 40 for w in "ear cushions soft plush bass deep".split()} | {"bass": 400, "deep": 400}
    facts = facts_from_reviews(REVIEWS, shared=common)
    assert [f.aspect for f in facts][0] == "bass"  # more items' reviews talk about bass than about cushions


def test_a_described_flaw_becomes_a_dislike_never_a_wish():
    reviews = ("The strap is flimsy and thin. Sound is clear.", "A flimsy strap again. Clear sound.")
    facts = facts_from_reviews(reviews, aspects={"strap": "strap", "sound": "sound"})
    strap = next(f for f in facts if f.aspect == "strap")
    assert strap.phrase == ""  # nothing to ask for
    cues = ("don't want", "n't flimsy", "hate", "just not")
    assert any(cue in strap.utterance.lower() for cue in cues), strap.utterance


def test_critical_reviews_add_only_their_flaws():
    critical = ("Weird chemical smell out of the box. The sound is clear though.",)
    shared = {w: 30 for w in "smell weird sound clear".split()}
    facts = facts_from_reviews(("Sound is clear.", "Clear sound, love it."), shared=shared, critical=critical)
    smell = [f for f in facts if f.aspect == "smell"]
    assert smell and "smell" in smell[0].utterance.lower() and "weird" in smell[0].utterance and smell[0].phrase == ""
    assert "chemical" not in " ".join(f.utterance for f in facts)  # not shared: not said


def test_on_a_real_catalog_no_fact_is_worded_around_a_verb_or_a_judgement():
    reviews = ("These patch cords work great. The knobs feel sturdy.", "Patch cords work well and the knobs feel sturdy.",
               "I play guitar every day. The tone is clean.", "Clean tone, and I play guitar daily.")
    shared = {w: 50 for w in "patch cords work great knobs feel sturdy play guitar tone clean well".split()}
    said = " ".join(f.utterance.lower() for f in facts_from_reviews(reviews, shared=shared))
    assert "tone" in said and "clean" in said
    for junk in ("work", "feel sturdy", "play guitar"):
        assert junk not in said, said


def test_praise_and_words_true_of_anything_are_no_wish():
    reviews = ("The color is great. Great color overall.", "Great color, and the fabric is soft.",
               "Soft fabric. The color is great.", "The big game was on.")
    said = " ".join(f.utterance.lower() for f in facts_from_reviews(reviews))
    assert "fabric" in said and "soft" in said
    assert "great" not in said and "big game" not in said, said


def test_on_a_real_catalog_a_wish_is_a_noun_with_its_adjectives_as_the_tagger_reads_them():
    reviews = ("The strings held up for months. It requires a phantom powered xlr input.",
               "Strings held fine, and it needs a phantom powered xlr input.",
               "My previous amp was loud. The box is built like a tank. The sound is warm and clear.",
               "My previous amp hummed. The box is built well. Sound is warm.")
    shared = {w: 50 for w in "strings held phantom powered xlr input previous amp loud box built tank sound warm "
                             "clear requires needs fine".split()}
    aspects = {term: term for term in ("strings", "input", "amp", "box", "sound")}
    said = " ".join(f.utterance.lower() for f in facts_from_reviews(reviews, aspects=aspects, shared=shared))
    assert "xlr input" in said and "powered" not in said  # the verb before the noun phrase left out
    assert "warm" in said  # "the sound is warm and clear"
    assert "held" not in said  # a verb where the rules look for a noun
    assert "built" not in said  # a verb after the copula: no quality of the box
    assert "previous" not in said and "loud amp" not in said  # the reviewer's own amp, not the item


def test_the_tagger_is_read_only_on_a_real_catalog(monkeypatch):
    from environments.search import parsing

    reviews = ("The strings held up. Strings held well.",)
    before = facts_from_reviews(reviews)

    def no_tagger(words):
        raise AssertionError("the tagger was read without a shared vocabulary")

    monkeypatch.setattr(parsing, "tags", no_tagger)
    assert facts_from_reviews(reviews) == facts_from_reviews(reviews, shared=None)
    assert facts_from_reviews(reviews) == before


def test_with_shared_pairs_a_described_thing_is_a_phrase_several_items_write():
    reviews = ("It hangs on the guitar wall. It has a bright display.", "Bright display, and it sits on a guitar wall.",
               "The bright display is easy to read.")
    shared = {w: 50 for w in "guitar wall bright display hung sits easy read".split()}
    aspects = {"wall": "wall", "display": "display"}
    unchecked = " ".join(f.utterance.lower() for f in facts_from_reviews(reviews, aspects=aspects, shared=shared))
    assert "guitar wall" in unchecked and "bright display" in unchecked
    pairs = {"bright display": 12, "guitar strap": 30}
    said = " ".join(f.utterance.lower() for f in facts_from_reviews(reviews, aspects=aspects, shared=shared,
                                                                    shared_pairs=pairs))
    assert "bright display" in said and "wall" not in said  # one reviewer's place, not a wish


def _said(reviews, aspects, shared_words, **kwargs) -> str:
    shared = {w: 50 for w in shared_words.split()}
    return " ".join(f.utterance.lower() for f in facts_from_reviews(reviews, aspects=aspects, shared=shared, **kwargs))


def test_a_noun_of_the_catalogs_theme_describes_nothing():
    reviews = ("A real acoustic guitar sound. The tone is bright.", "Great guitar sound, and a bright tone.")
    aspects = {"sound": "sound", "tone": "tone"}
    words = "real acoustic guitar sound tone bright"
    assert "guitar sound" in _said(reviews, aspects, words)
    said = _said(reviews, aspects, words, theme=frozenset({"guitar"}))
    assert "bright tone" in said and "guitar sound" not in said, said


def test_a_term_that_is_no_head_and_a_qualified_descriptor_are_no_wish():
    reviews = ("These guitar wall hangers hold well. A very well built stand.",
               "Best guitar wall hangers around, a solidly built stand.", "A very long neck. The neck is long.")
    aspects = {"wall": "wall", "stand": "stand", "neck": "neck"}
    said = _said(reviews, aspects, "guitar wall hangers hold built stand solidly long neck")
    assert "long neck" in said  # "very" only intensifies
    assert "wall" not in said, said  # the hangers are the head
    assert "built stand" not in said, said  # "well built": the adverb is the point


def test_an_adjective_without_its_complement_is_no_wish():
    reviews = ("The box is easy to use. The knobs are smooth.", "Easy to use box, the knobs are smooth.")
    said = _said(reviews, {"box": "box", "knobs": "knobs"}, "box easy use knobs smooth")
    assert "smooth" in said and "easy" not in said, said


def test_an_intensifier_is_no_flaw_and_a_dislike_has_its_article():
    quiet = ("This box is dead quiet. It is dead quiet.", "Dead quiet box, really.")
    facts = facts_from_reviews(quiet, aspects={"box": "box"})
    assert facts and facts[0].phrase, facts  # a wish, not a dislike of "dead quiet"
    flimsy = ("The clip is weak on this one.", "Weak clip on this one, sadly.")
    clip = facts_from_reviews(flimsy, aspects={"clip": "clip"})[0]
    assert clip.phrase == "" and "the clip" in clip.utterance.lower() and "weak" in clip.utterance, clip.utterance
    lazy = facts_from_reviews(("A lazy sunday brunch. Lazy sunday brunch again.",), aspects={"brunch": "brunch"})
    assert lazy and lazy[0].phrase == "", lazy  # "lazy" intensifies nothing: still a flaw

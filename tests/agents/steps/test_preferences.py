"""PEPPER preference steps: binary likes/dislikes per review, general preferences, reflections."""

from __future__ import annotations

from agents.steps.pepper.preferences import (
    BinaryPreferences, GeneralPreferences, SeenEvidence, binary_preferences, binary_score, feature_key,
    general_weights, parse_features, preferences_from_weights, raw_review_score, weights_of, weights_score,
)
from agents.steps.pepper.reflect import ReflectInput, ReflectStep
from agents.steps.seeker import talk
from agents.steps.seeker.value_lexicon import ValueLexicon
from environments.base import ItemCard

LEXICON = ValueLexicon({"slow-burn dread": ("genre", "horror"), "horror": ("genre", "horror"),
                        "belly laughs": ("genre", "comedy"), "comedy": ("genre", "comedy"),
                        "neon eighties": ("era", "1980s"), "1980s": ("era", "1980s")})
HORROR, COMEDY, EIGHTIES = ("genre", "horror"), ("genre", "comedy"), ("era", "1980s")


def card(item_id: str, description: str = "", **attributes: str) -> ItemCard:
    return ItemCard(item_id, f"Title {item_id}", description, attributes)


def test_lexicon_finds_phrases_on_word_boundaries_longest_first():
    text = "The slow-burn dread and the neon eighties look; not horrorcore."
    assert LEXICON.features(text) == {HORROR, EIGHTIES}
    assert LEXICON.card_features(card("a", "Full of belly laughs.", era="1980s")) == {COMEDY, EIGHTIES}


def test_binary_preferences_read_the_attitude_not_the_phrase():
    review = "The slow-burn dread was wonderful. The belly laughs were awful and annoying. I watched it twice."
    prefs = binary_preferences(review, LEXICON)
    assert parse_features(prefs.likes, LEXICON) == [HORROR]
    assert parse_features(prefs.dislikes, LEXICON) == [COMEDY]


def test_a_neutral_sentence_takes_the_reviews_stars():
    review = "It has slow-burn dread."
    assert parse_features(binary_preferences(review, LEXICON, rating=5).likes, LEXICON) == [HORROR]
    assert parse_features(binary_preferences(review, LEXICON, rating=1).dislikes, LEXICON) == [HORROR]
    assert binary_preferences(review, LEXICON, rating=3) == BinaryPreferences()


def test_general_weights_keep_supported_features_scaled_to_one():
    like_horror = BinaryPreferences(likes=[feature_key(HORROR)])
    seen = [SeenEvidence(card("a"), 5.0, like_horror), SeenEvidence(card("b"), 4.0, like_horror),
            SeenEvidence(card("c"), 2.0, BinaryPreferences(dislikes=[feature_key(COMEDY)]))]
    weights = general_weights(seen, LEXICON, min_support=2)
    assert weights == {HORROR: 1.0}  # comedy has one review behind it: not a taste yet
    weights = general_weights(seen, LEXICON, min_support=1)
    assert weights[HORROR] == 1.0 and weights[COMEDY] == -0.5


def test_rating_deviation_on_listed_values_counts_as_evidence():
    seen = [SeenEvidence(card("a", era="1980s"), 5.0, BinaryPreferences()),
            SeenEvidence(card("b", era="1980s"), 5.0, BinaryPreferences()),
            SeenEvidence(card("c", genre="comedy"), 1.0, BinaryPreferences()),
            SeenEvidence(card("d", genre="comedy"), 1.0, BinaryPreferences())]
    weights = general_weights(seen, LEXICON)
    assert weights[EIGHTIES] > 0 > weights[COMEDY]


def test_preferences_round_trip_through_their_keys():
    prefs = preferences_from_weights({HORROR: 1.0, EIGHTIES: 0.4, COMEDY: -0.8})
    assert prefs.likes == [feature_key(HORROR), feature_key(EIGHTIES)] and prefs.dislikes == [feature_key(COMEDY)]
    assert "horror" in prefs.narrative and "comedy" in prefs.narrative
    assert weights_of(prefs, LEXICON) == {HORROR: 1.0, EIGHTIES: 0.4, COMEDY: -0.8}


def test_scores_rank_a_matching_item_above_a_clashing_one():
    weights = {HORROR: 1.0, COMEDY: -1.0}
    assert weights_score(weights, {HORROR}) > weights_score(weights, {COMEDY})
    reviews = [BinaryPreferences(likes=[feature_key(HORROR)]), BinaryPreferences(dislikes=[feature_key(COMEDY)])]
    assert binary_score(reviews, {HORROR}, LEXICON) == 1.0 and binary_score(reviews, {COMEDY}, LEXICON) == -1.0
    raw = [("Great slow burn dread, spooky house", 5.0), ("Silly belly laughs, bad jokes", 1.0)]
    assert raw_review_score(raw, "a spooky house of dread") > raw_review_score(raw, "belly laughs and jokes")


def test_reflection_judges_seen_items_by_own_rating_and_unseen_by_taste():
    prefs = GeneralPreferences(narrative="", likes=[feature_key(HORROR)], dislikes=[feature_key(COMEDY)],
                               weights={feature_key(HORROR): 1.0, feature_key(COMEDY): -1.0})
    shown = [card("seen1"), card("h", "Pure slow-burn dread."), card("c", genre="comedy"), card("x")]
    step = ReflectStep(lexicon=LEXICON)
    reflection = step.offline(ReflectInput(shown, {"seen1": (2.0, "Meh.")}, prefs, "movies"))
    reactions = {r.item_id: r for r in reflection.reactions}
    assert reactions["seen1"].seen and reactions["seen1"].reaction == "dislike"
    assert reactions["h"].reaction == "like" and "horror" in reactions["h"].reason
    assert reactions["c"].reaction == "dislike" and reactions["x"].reaction == "unsure"
    # each item pointed at by its position on screen or by its (short) title, as people do
    for position, (item_id, reaction) in enumerate(reactions.items()):
        named = {f"the {talk.ORDINALS[position]} one", shown[position].title.lower()}
        assert any(name in reaction.reason.lower() for name in named), (item_id, reaction.reason)
    other_titles = [c.title for c in shown if c.id != "h"]
    assert not any(t in reactions["h"].reason for t in other_titles)  # never another item's title


def test_reactions_are_worded_differently_across_episodes():
    prefs = GeneralPreferences(narrative="", likes=[feature_key(HORROR)], weights={feature_key(HORROR): 1.0})
    shown = [card("h", "Pure slow-burn dread.")]
    step = ReflectStep(lexicon=LEXICON)
    said = {step.offline(ReflectInput(shown, {}, prefs, "movies", seed=(seed, 1))).reactions[0].reason
            for seed in range(30)}
    assert len(said) >= 5


def test_reaction_bars_are_relative_to_the_users_own_seen_items():
    from agents.steps.pepper.preferences import reaction_bars

    weights = {HORROR: 1.0, EIGHTIES: 0.5}
    seen = [card("a", genre="horror", era="1980s"), card("b", genre="horror"), card("c", era="1980s"),
            card("d", era="1980s"), card("e")]
    like_at, dislike_at = reaction_bars(weights, seen, LEXICON, share=0.25)
    assert like_at == 1.0 and dislike_at == 0.5  # 75th and 25th percentiles of 1.5, 1, .5, .5, 0
    prefs = preferences_from_weights(weights)
    shown = [card("x", genre="horror"), card("y", era="1980s"), card("z", genre="horror", era="1980s")]
    reactions = ReflectStep(lexicon=LEXICON).offline(ReflectInput(shown, {}, prefs, "movies", (like_at, dislike_at)))
    assert [r.reaction for r in reactions.reactions] == ["like", "dislike", "like"]
    assert reaction_bars(weights, [], LEXICON) == (0.3, -0.3)


def test_the_models_phrases_are_capped_in_its_schema_and_kept_once():
    from agents.steps.pepper.preferences import CappedPreferences, ExtractPreferencesStep

    assert CappedPreferences.model_json_schema()["properties"]["likes"]["maxItems"] == 6  # the grammar stops at six
    step = ExtractPreferencesStep.__new__(ExtractPreferencesStep)
    kept = step.accept(CappedPreferences(likes=["Optimism", "optimism ", " sunny", "Optimism"], dislikes=["slow"]), None)
    assert (kept.likes, kept.dislikes) == (["Optimism", "sunny"], ["slow"])

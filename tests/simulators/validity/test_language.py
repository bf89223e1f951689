"""Each text figure against numbers computed by hand."""

import math

from simulators.validity import language


def test_words_questions_and_preferences():
    assert len(language.words("Hi, do you know any  good comedies?")) == 7
    assert language.asks("any good comedies?") and not language.asks("I like comedies.")
    stated = ["I love thrillers", "I'm not into gore", "I don't like horror", "I would like a comedy",
              "My favorite is Alien", "we did not like it", "I'm looking for a quiet place"]
    unstated = ["Have you seen Titanic?", "Hi there", "Something with great views", "I think so", "likes are fine"]
    assert all(language.states_preference(t) for t in stated)
    assert not any(language.states_preference(t) for t in unstated)


def test_a_preference_with_the_i_left_out_counts_and_like_as_a_preposition_does_not():
    stated = ["Loved it!", "Yes, loved the first one", "Really like action", "Never liked horror",
              "It was fun, enjoyed it", "Big fan of Pixar", "Not a fan of gore", "seen it but hated it"]
    unstated = ["Like Alien, but scarier", "Something like Jaws", "Enjoy your day!", "Do you like comedies?",
                "loving the weather", "Oh yeah! Logan (2017) was fantastic!!"]
    assert [t for t in stated if not language.states_preference(t)] == []
    assert [t for t in unstated if language.states_preference(t)] == []


def test_skeleton_keeps_function_words_and_folds_other_runs():
    assert language.skeleton("Lifeproof case matters most to me.") == ("*", "most", "to", "me")
    assert language.skeleton("I like horror movies with zombies") == ("i", "like", "*", "with", "*")


def test_template_rate_by_hand():
    # 21 sentences: 20 of one skeleton "* is a * for me" (> 5% of 21), 1 of another (1/21 = 4.8%: not a template),
    # plus two-token sentences ("Thanks a lot" -> "* a *" is 3 tokens: kept; "Okay!" -> ("*",): dropped)
    texts = [f"{w} is a big thing for me." for w in ("Noise", "Price", "Food", "Wine", "Service")] * 4
    texts.append("Thanks a lot. Okay!")
    assert language.skeleton("Thanks a lot") == ("*", "a", "*")
    assert math.isclose(language.template_rate(texts), 20 / 21)
    # 25 sentences with 25 different skeletons ("i of *", "i in *", ...): each is 4% < 5%, none a template
    words = "of in on at by for with about to from into over under between through during before after above " \
            "below up down out off than".split()[:25]
    varied = [f"I {w} gardens" for w in words]
    assert len({language.skeleton(s) for s in varied}) == 25
    assert language.template_rate(varied) == 0.0
    assert language.template_rate(varied[:5] * 5) == 1.0  # the same five, five times each: 20% apiece


def test_distinct_n_by_hand():
    # tokens: a b a | b c  -> unigrams 5, distinct 3; bigrams (a b)(b a)(b c) = 3, distinct 3
    assert math.isclose(language.distinct_n(["a b a", "b c"], 1), 3 / 5)
    assert math.isclose(language.distinct_n(["a b a", "b c"], 2), 1.0)
    assert math.isnan(language.distinct_n([], 1))


def test_pointing_at_a_shown_item_by_its_place():
    for text in ("The first one is a no from me.", "I'd skip the second one", "number 3 please", "Is #2 any good?",
                 "That last one sounds good", "the top pick", "I'll take the 2nd.", "option 2 looks nice",
                 "I think I'll stick with the first option"):
        assert language.points_by_position(text), text
    for text in ("the first time I saw it", "The Fourth Kind (2009)", "the top of my list", "the first Harry Potter",
                 "I loved it", "in the last 10 years", "a second opinion"):
        assert not language.points_by_position(text), text

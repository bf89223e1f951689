"""The rule-based act labeller on hand-written turns: acts, their order, and why they fired."""

from __future__ import annotations

import pytest

from environments.acts.inventory import RECOMMENDER_ACTS, SEEKER_ACTS
from environments.acts.labeller import (explain_recommender_turn, explain_seeker_turn, label_episode,
                                        label_recommender_turn, label_seeker_turn)
from environments.models import Episode, TerminationReason, Turn

SHOWN = ("Get Out",)
AFTER_RECOMMEND = {"shown_titles": SHOWN, "previous": ["recommend"]}


@pytest.mark.parametrize("text, kwargs, expected", [
    ("Hi! I'm looking for a good horror movie", {"first": True}, ["request"]),
    ("I love comedies with Will Ferrell", {"first": True}, ["request"]),            # an opening preference
    ("I like comedies with Will Ferrell", {"previous": ["elicit"]}, ["preference"]),
    ("I've seen it, loved it. Any others?", AFTER_RECOMMEND, ["like_shown", "seen_shown", "ask_more"]),
    ("I haven't seen it. What is it about?", AFTER_RECOMMEND, ["ask_shown"]),       # the question says more
    ("Never heard of that one.", AFTER_RECOMMEND, ["unseen_shown"]),
    ("Not a fan of that one", AFTER_RECOMMEND, ["dislike_shown"]),
    ("That's too scary for me", AFTER_RECOMMEND, ["preference", "dislike_shown"]),  # a critique
    ("I'll check it out, thanks!", AFTER_RECOMMEND, ["accept"]),
    ("I will not watch that", AFTER_RECOMMEND, ["chitchat"]),                       # a negated accept
    ("Get Out (2017) was great", {**AFTER_RECOMMEND, "mentioned_titles": ["Get Out"]}, ["like_shown"]),
    ("I have seen Get Out", AFTER_RECOMMEND, ["seen_shown"]),                      # title found in the text
    ("I loved I Know What You Did Last Summer (1997)",
     {**AFTER_RECOMMEND, "mentioned_titles": ["I Know What You Did Last Summer"]}, ["name_liked"]),
    # a title of its own offered as an example: people name the films they like over several short turns
    ("Maybe like Heat (1995)", {"mentioned_titles": ["Heat"], "previous": ["elicit"]}, ["name_liked"]),
    ("or Alien (1979) too", {"mentioned_titles": ["Alien"], "previous": ["elicit"]}, ["name_liked"]),
    ("Heat (1995)", {"mentioned_titles": ["Heat"], "previous": ["elicit"]}, ["name_liked"]),
    ("Also really LOVED Heat (1995)", {"mentioned_titles": ["Heat"], "previous": ["elicit"]}, ["name_liked"]),
    ("Have you seen Heat (1995)?", {"mentioned_titles": ["Heat"], "previous": ["elicit"]}, ["chitchat"]),
    ("I haven't seen Heat (1995) yet", {"mentioned_titles": ["Heat"], "previous": ["elicit"]}, ["chitchat"]),
    ("Thanks, bye!", AFTER_RECOMMEND, ["close"]),
    ("Thank you so much!", AFTER_RECOMMEND, ["close"]),
    ("lol", AFTER_RECOMMEND, ["chitchat"]),
    ("", {}, ["chitchat"]),
])
def test_seeker_turns(text, kwargs, expected):
    assert label_seeker_turn(text, **kwargs) == expected


def test_reactions_need_something_shown_and_in_focus():
    assert label_seeker_turn("I've seen it, loved it") == ["chitchat"]
    # after a question about tastes, "it" points at nothing on screen
    assert label_seeker_turn("I've seen it", shown_titles=SHOWN, previous=["elicit"]) == ["chitchat"]
    assert label_seeker_turn("I've seen it", shown_titles=SHOWN, previous=["ask_seen"]) == ["seen_shown"]


def test_a_short_title_is_matched_only_as_written_with_its_year():
    assert label_seeker_turn("What's up with you?", shown_titles=["Up"], previous=["recommend"]) == ["chitchat"]
    assert label_seeker_turn("I loved Up (2009)", shown_titles=["Up"], previous=["greet"]) == ["like_shown"]


@pytest.mark.parametrize("text", ["Hi", "Seen it. Hated it!", "Any other ideas? I like dramas", "What?", "..."])
def test_seeker_acts_are_known_ordered_and_never_empty(text):
    acts = label_seeker_turn(text, shown_titles=SHOWN, previous=["recommend"])
    assert acts and set(acts) <= set(SEEKER_ACTS)
    assert acts == sorted(acts, key=SEEKER_ACTS.index)


def test_explain_names_the_rule_and_the_clause():
    why = explain_seeker_turn("Sounds good. I'll check it out", **AFTER_RECOMMEND)
    assert ("accept", "ACCEPT", "I'll check it out") in why
    absorbed = explain_seeker_turn("Haven't seen it, but I'll check it out", **AFTER_RECOMMEND)
    assert ("-unseen_shown", "absorbed by accept", "") in absorbed
    assert explain_seeker_turn("lol") == [("chitchat", "nothing else", "lol")]


@pytest.mark.parametrize("text, items, previous, expected", [
    ("Hi! What kind of movies do you like?", [], [], ["greet", "elicit"]),
    ("Have you seen Get Out (2017)?", ["Get Out"], [], ["ask_seen"]),
    ("How about Get Out (2017)? It's a smart horror movie with Daniel Kaluuya.", ["Get Out"], [],
     ["recommend", "explain"]),
    ("It's about a man who visits his girlfriend's family.", [], ["ask_shown"], ["explain", "answer"]),
    ("Enjoy the movie, bye!", [], ["accept"], ["close"]),
    ("I haven't seen Get Out (2017) myself", ["Get Out"], [], ["chitchat"]),
    ("Haha, same here", [], [], ["chitchat"]),
])
def test_recommender_turns(text, items, previous, expected):
    acts = label_recommender_turn(text, items_shown=items, previous=previous)
    assert acts == expected and acts == sorted(acts, key=RECOMMENDER_ACTS.index)


def test_an_item_shown_beside_the_text_is_recommended():
    assert label_recommender_turn("Here is one for you", items_shown=["Superbad"]) == ["recommend"]
    assert ("recommend", "items shown beside the text", "Here is one for you") in explain_recommender_turn(
        "Here is one for you", items_shown=["Superbad"])


def _episode(feedback: dict[str, str]) -> Episode:
    turns = [
        Turn(index=0, role="seeker", text="Hi"),
        Turn(index=1, role="recommender", text="Hello! What kind of movies do you like?"),
        Turn(index=2, role="seeker", text="I love silly comedies"),
        Turn(index=3, role="recommender", text="How about Superbad (2007)?", items_shown=["m1"]),
        Turn(index=4, role="seeker", text="I've seen Superbad (2007), it was hilarious. Anything else?",
             feedback=feedback, metadata={"mentioned": ["m1"]}),
        Turn(index=5, role="narrator", text="(the seeker leaves)"),
        Turn(index=6, role="seeker", text="", feedback=feedback, metadata={"feedback_only": True}),
    ]
    return Episode(id="e", index=0, config_hash="h", seed=0, environment="test", turns=turns,
                   termination=TerminationReason.max_turns)


def test_label_episode_reads_text_items_and_mentions_never_feedback():
    titles = {"m1": "Superbad"}
    labels = label_episode(_episode({"m1": "like"}), titles)
    assert labels == [["chitchat"], ["greet", "elicit"], ["request"], ["recommend"],
                      ["like_shown", "seen_shown", "ask_more"], ["chitchat"], ["chitchat"]]
    assert label_episode(_episode({"m1": "dislike"}), titles) == labels
    assert label_episode(_episode({}), titles) == labels


def test_label_episode_without_titles_uses_ids_as_titles():
    episode = _episode({})
    episode.turns[3].items_shown = ["Superbad"]
    episode.turns[4].metadata = {"mentioned": ["Superbad"]}
    assert label_episode(episode)[4] == ["like_shown", "seen_shown", "ask_more"]


ASKED_SEEN = {"shown_titles": SHOWN, "previous": ["ask_seen"]}


@pytest.mark.parametrize("text, kwargs, expected", [
    # PRAISE: a judgement without "I" speaks of the item in focus
    ("Yes that one is great", AFTER_RECOMMEND, ["like_shown"]),
    ("Another classic!", AFTER_RECOMMEND, ["like_shown"]),
    ("pretty funny", AFTER_RECOMMEND, ["like_shown"]),
    ("Wow. Yeah funny the whole time!", AFTER_RECOMMEND, ["like_shown"]),
    ("Great!", AFTER_RECOMMEND, ["chitchat"]),                                      # ACK_ONLY: an acknowledgement
    ("hope your day is great", AFTER_RECOMMEND, ["chitchat"]),                      # NOT_ITEM
    ("He is a great actor", AFTER_RECOMMEND, ["preference"]),                       # PEOPLE: praise of a person
    # JUDGED: a past judgement that is neither praise nor a fault
    ("Yep, that was crazy.", AFTER_RECOMMEND, ["seen_shown"]),
    # ANSWER_YES / ANSWER_NO: a bare answer to "have you seen X?"
    ("Yes!", ASKED_SEEN, ["seen_shown"]),
    ("Yes!", AFTER_RECOMMEND, ["chitchat"]),
    ("Nope.", ASKED_SEEN, ["unseen_shown"]),
    ("I have not.", AFTER_RECOMMEND, ["unseen_shown"]),
    ("I havent watch either of those suggestions", AFTER_RECOMMEND, ["unseen_shown"]),
    # ACCEPT, widened
    ("Oh yes another good idea!", AFTER_RECOMMEND, ["accept"]),
    ("I have always wanted to see that one, can never find it.", AFTER_RECOMMEND, ["accept"]),
    ("I keep hearing about that one", AFTER_RECOMMEND, ["accept"]),
    ("I'll look at that one too.", AFTER_RECOMMEND, ["accept"]),
    ("Thank you for the great suggestions", AFTER_RECOMMEND, ["close"]),           # thanks, not an accept
    # DISLIKE, widened: passing on it, curly apostrophes, "doesn't care for"
    ("I think I'll pass, lol", AFTER_RECOMMEND, ["dislike_shown"]),
    ("I didn\u2019t really like that one", AFTER_RECOMMEND, ["dislike_shown"]),
    ("but not Get Out (2017) it was too silly", AFTER_RECOMMEND, ["preference", "dislike_shown"]),
    ("My daughter doesnt care much for animated films", AFTER_RECOMMEND, ["preference", "dislike_shown"]),
    # preferences and named liked titles
    ("I like that kind of movies also", AFTER_RECOMMEND, ["preference"]),
    ("Die Hard (1988) is a great movie!", {**AFTER_RECOMMEND, "mentioned_titles": ["Die Hard"]}, ["name_liked"]),
    ("just saw Small Town Crime (2017)", {**AFTER_RECOMMEND, "mentioned_titles": ["Small Town Crime"]},
     ["name_liked"]),
    ("My kids love Moana (2016)", {**AFTER_RECOMMEND, "mentioned_titles": ["Moana"]}, ["name_liked"]),
    # ITEM_QUESTION: "is it ..." asks about the item in focus even beside another title
    ("Is it like Moana (2016) in terms of feel good?", {**AFTER_RECOMMEND, "mentioned_titles": ["Moana"]},
     ["ask_shown"]),
])
def test_reaction_and_preference_cues(text, kwargs, expected):
    assert label_seeker_turn(text, **kwargs) == expected


def test_reaction_cues_need_focus_and_are_explained():
    # after a question about tastes, or with nothing shown, a judgement points at no item
    assert label_seeker_turn("That one is great", shown_titles=SHOWN, previous=["elicit"]) == ["chitchat"]
    assert label_seeker_turn("Another classic!") == ["chitchat"]
    assert ("like_shown", "PRAISE", "that one is great") in explain_seeker_turn("that one is great", **AFTER_RECOMMEND)
    assert ("seen_shown", "ANSWER_YES after ask_seen", "Yes!") in explain_seeker_turn("Yes!", **ASKED_SEEN)
    # only the turn's first clause answers the question
    assert label_seeker_turn("Hmm. Yes", **ASKED_SEEN) == ["chitchat"]

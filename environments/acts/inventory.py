"""The act inventory: a small, fixed set of what a seeker's or a recommender's turn does.

Small on purpose: each act must be recognisable by a transparent labeller on real corpus
turns (and checked against human intent labels, `scripts/eval_act_labeller.py`), and each
must be one a simulated seeker can perform. A turn may carry several acts ("Seen it, loved
it. Any others?" is `seen_shown`, `like_shown`, `ask_more`). The descriptions are what the
docs and the fitted policy file show a user.
"""

from __future__ import annotations

from enum import Enum


class SeekerAct(str, Enum):
    request = "request"                # opens or restates the request: "I'm looking for a good horror movie"
                                       # (the preferences it states are part of it, not also `preference`)
    preference = "preference"          # states a preference about an attribute: "I like comedies", "not too scary"
    name_liked = "name_liked"          # names an item it liked before, not one on screen: "I loved Get Out"
    accept = "accept"                  # takes a shown item: "I'll watch that one", "sounds great, thanks"
    like_shown = "like_shown"          # likes a shown item it knows: "that one was great"
    dislike_shown = "dislike_shown"    # turns a shown item down: "not a fan of that one"; with a reason,
                                       # "too scary for me", also `preference`; "seen it, hated it" is this alone
    seen_shown = "seen_shown"          # has seen a shown item: "I've seen it"
    unseen_shown = "unseen_shown"      # has not seen a shown item, and takes no stance: "haven't seen it",
                                       # "never heard of it" ("haven't seen it, sounds good" is `accept`)
    ask_shown = "ask_shown"            # asks about a shown item: "what is it about?", "is it scary?"
    ask_more = "ask_more"              # asks for more or other suggestions: "any others?"
    close = "close"                    # ends the talk: goodbye, or a turn that is only thanks
    chitchat = "chitchat"              # greeting, small talk, anything else


class RecommenderAct(str, Enum):
    greet = "greet"                    # hello / how are you
    elicit = "elicit"                  # asks what the seeker wants or likes: "what kind of movies do you like?"
    ask_seen = "ask_seen"              # asks whether the seeker knows an item: "have you seen Get Out?"
    recommend = "recommend"            # suggests one or more items
    explain = "explain"                # says something about an item: plot, cast, why it fits
    answer = "answer"                  # answers the seeker's question
    close = "close"                    # ends the talk: goodbye, or a turn that is only thanks
    chitchat = "chitchat"              # anything else


SEEKER_ACTS: tuple[str, ...] = tuple(a.value for a in SeekerAct)
RECOMMENDER_ACTS: tuple[str, ...] = tuple(a.value for a in RecommenderAct)
# Acts about an item on screen: they need something shown.
REACTIONS: frozenset[str] = frozenset({"accept", "like_shown", "dislike_shown", "seen_shown", "unseen_shown",
                                       "ask_shown"})

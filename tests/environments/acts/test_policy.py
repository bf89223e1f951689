"""The seeker policy: fitted from labelled people's turns, read back from its file, refused when bad."""

import json

import pytest

from environments.acts.policy import (
    FAMILIES, context_of, family_of, fit_policy, load_policy, save_policy, seeker_turn_contexts,
)
from environments.errors import CrsimError
from environments.models import Episode, Turn

TITLES = {"m1": "Get Out (2017)", "m2": "Us (2019)", "m3": "The Shining (1980)", "m4": "Alien (1979)"}


def conversation(number: int, *, liked: bool = True) -> Episode:
    """Opening, a suggestion, a reaction, another suggestion, thanks."""
    turns = [("seeker", "Hi, I'm looking for a good horror movie", []),
             ("recommender", "Have you seen Get Out (2017)?", ["m1"]),
             ("seeker", "Yes I have seen it, loved it!" if liked else "I have seen it, did not like it", []),
             ("recommender", "Then you should watch Us (2019), it is great", ["m2"]),
             ("seeker", "Thanks, bye!", [])]
    return Episode(id=f"c{number}", index=number, config_hash="test", seed=0, environment="redial",
                   termination="max_turns",
                   turns=[Turn(index=i, role=r, text=t, items_shown=s) for i, (r, t, s) in enumerate(turns)],
                   profile={"split": "train", "seen": ["m1"] if number % 2 else [],
                            "unseen": [] if number % 2 else ["m1"],
                            "liked": ["m1", "m2"] if liked else ["m2"], "disliked": [] if liked else ["m1"]})


def test_families_and_contexts_take_the_first_that_applies():
    assert family_of(["seen_shown", "like_shown", "ask_more"]) == "react"
    assert family_of(["request"]) == "preference"
    assert family_of(["ask_shown", "name_liked"]) == "ask_shown"
    assert family_of([]) == "chitchat"
    assert context_of(["explain", "recommend"]) == "recommend"
    assert context_of(["elicit", "greet"]) == "elicit"
    assert context_of(["answer"]) == "inform"


def test_contexts_skip_the_opening_turn():
    rows = seeker_turn_contexts(conversation(0), [["request"], ["ask_seen"], ["seen_shown"], ["recommend"], ["close"]])
    assert rows == [("ask_seen", 2, "react"), ("recommend", 3, "close")]


def test_fitted_counts_reactions_and_distribution(tmp_path):
    episodes = [conversation(n, liked=n % 5 != 0) for n in range(30)]
    policy = fit_policy(episodes, TITLES, {"m1": 500.0, "m2": 3.0}, corpus="toy", splits=["train"])
    assert policy.source.conversations == 30 and policy.source.splits == ["train"]
    assert sum(policy.counts["recommend"].values()) == 30  # every "thanks, bye" followed a suggestion
    shares = policy.distribution("recommend", 3)
    assert shares["close"] == max(shares.values()) and sum(shares.values()) == pytest.approx(1.0)
    assert set(shares) == set(FAMILIES)
    rates = policy.reactions
    assert rates is not None and rates.items == 30 and rates.seen_share == pytest.approx(0.5)
    assert rates.like_share == pytest.approx((24 + 30) / 60)
    save_policy(policy, tmp_path / "p.json")
    assert load_policy(tmp_path / "p.json") == policy


def test_a_turn_that_did_two_things_gets_its_own_cell_or_the_mean_of_its_parts():
    episodes = [conversation(n) for n in range(30)]
    policy = fit_policy(episodes, TITLES, {}, corpus="toy", splits=["train"])
    mixed = policy.distribution_for(("recommend", "elicit"))
    parts = policy.distribution("recommend"), policy.distribution("elicit")
    assert mixed == {f: (parts[0][f] + parts[1][f]) / 2 for f in FAMILIES}
    policy.counts["recommend+elicit"] = {"preference": 40}
    assert policy.distribution_for(("recommend", "elicit"))["preference"] > 0.8


def test_a_cell_with_few_turns_backs_off_to_the_recommenders_act():
    policy = fit_policy([conversation(n) for n in range(3)], TITLES, {}, corpus="toy", splits=["train"])
    assert policy.distribution("recommend", 3) == policy.distribution("recommend")
    assert policy.reactions is None or policy.reactions.items == 3


def test_bad_policy_files_name_the_file_and_field(tmp_path):
    with pytest.raises(CrsimError, match="no such policy file"):
        load_policy(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{\n  \"version\": 1,\n")
    with pytest.raises(CrsimError, match=r"bad.json, line 3: invalid JSON"):
        load_policy(bad)
    source = {"corpus": "x", "splits": [], "conversations": 1, "seeker_turns": 1}
    bad.write_text(json.dumps({"version": 1, "source": source, "counts": {"recommend": {"react": "many"}}}))
    with pytest.raises(CrsimError, match=r"field 'counts.recommend.react'"):
        load_policy(bad)
    bad.write_text(json.dumps({"version": 7}))
    with pytest.raises(CrsimError, match="policy version 7"):
        load_policy(bad)


def test_no_labelled_turns_is_an_error():
    with pytest.raises(CrsimError, match="no labelled seeker turns"):
        fit_policy([], TITLES, {}, corpus="toy", splits=["train"])

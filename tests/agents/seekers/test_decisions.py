"""A seeker driven by a policy fitted on people: next act by context, reactions from what it knows."""

import random
from collections import Counter

from agents.seekers import decisions
from agents.seekers.target_biased import policy_move
from environments.acts.policy import FAMILIES, PolicySource, ReactionRates, SeekerPolicy
from environments.base import ItemCard, SeekerObservation
from environments.models import Role, Turn
from environments.single_target import TargetBiasedProfile
from environments.single_target.profile import PersonContext
from environments.target_facts import TargetKnowledge

RATES = ReactionRates(items=100, seen_share=0.5, like_share=0.9, seen_intercept=-3.0, seen_slope=1.0)
PERSON = TargetBiasedProfile("t1", "Hereditary (2018)", {}, "", (), "", TargetKnowledge(()),
                             person=PersonContext("c1", ("I love scary movies like Get Out",), ("m1",)),
                             liked=("Get Out (2017)",), popularity={"m2": 1000.0, "m3": 0.0})
SHOWN = (ItemCard("m1", "Get Out (2017)", "", {}), ItemCard("m2", "The Shining (1980)", "", {}),
         ItemCard("m3", "Obscure Film (1971)", "", {}), ItemCard("t1", "Hereditary (2018)", "", {}))


def policy(**counts: int) -> SeekerPolicy:
    """A policy whose every context does what `counts` says."""
    source = PolicySource(corpus="toy", splits=["train"], conversations=1, seeker_turns=sum(counts.values()))
    return SeekerPolicy(source=source, counts={"recommend": counts}, reactions=RATES, min_count=1)


def observation(shown=SHOWN, seed=0, said=()):
    dialogue = [Turn(index=0, role=Role.seeker, text="I love scary movies like Get Out", metadata={"opening": True})]
    dialogue += [Turn(index=len(dialogue), role=Role.seeker, text=t) for t in said]
    dialogue.append(Turn(index=len(dialogue), role=Role.recommender, text="You should watch The Shining (1980)",
                         items_shown=[c.id for c in shown]))
    return SeekerObservation(1, tuple(dialogue), shown, PERSON, "movies", seed)


def test_the_persons_own_film_is_seen_and_liked_never_turned_down():
    reaction = decisions.decide_reaction(SHOWN[0], 0, target_id="t1", known=("m1",), rates=RATES, mentions={}, seed=0)
    assert reaction.seen and reaction.like and not reaction.accept
    move = policy_move(observation(shown=SHOWN[:3]), [], [], [], policy(react=100))
    assert move is not None and move.reply.feedback == {"m1": "like"} and move.reply.metadata["seen"] == {"m1": True}
    assert not move.reply.accept


def test_the_target_on_screen_is_taken_first_and_never_named():
    move = policy_move(observation(), [], [], [], policy(react=100))
    assert move is not None and move.reply.accept and move.reply.feedback == {"t1": "like"}
    assert "Hereditary" not in move.reply.text


def test_popular_items_were_seen_obscure_ones_not():
    popular = decisions.decide_reaction(SHOWN[1], 1, target_id="t1", known=(), rates=RATES,
                                        mentions=PERSON.popularity, seed=0)
    obscure = decisions.decide_reaction(SHOWN[2], 2, target_id="t1", known=(), rates=RATES,
                                        mentions=PERSON.popularity, seed=0)
    assert popular.seen and not obscure.seen
    likes = [decisions.decide_reaction(SHOWN[2], 2, target_id="t1", known=(), rates=RATES, mentions={}, seed=s).like
             for s in range(400)]
    assert 0.84 < sum(likes) / 400 < 0.96  # as often as people liked what they were suggested


def test_families_follow_the_policy_among_those_possible_now():
    p = policy(react=60, ask_more=30, close=10)
    drawn = Counter(decisions.choose_family(p, ("recommend",), 3, FAMILIES, random.Random(s)) for s in range(2000))
    assert drawn.most_common(1)[0][0] == "react" and drawn["ask_more"] > drawn["close"]
    assert {decisions.choose_family(p, ("recommend",), 3, ["close", "chitchat"], random.Random(s))
            for s in range(50)} <= {"close", "chitchat"}


def test_closing_quits_and_nothing_on_screen_means_no_reaction():
    moves = [policy_move(observation(shown=(), seed=s), [], [], [], policy(react=100, close=1)) for s in range(30)]
    assert all(m is not None and m.reply.metadata["move"] != "react" for m in moves)
    assert any(m.reply.quit for m in moves if m is not None)


def test_context_is_what_the_recommender_just_did():
    assert decisions.recommender_contexts(observation()) == ("recommend",)
    asked = observation(shown=())
    asked = SeekerObservation(1, (*asked.dialogue[:-1], Turn(index=1, role=Role.recommender,
                                                              text="What kind of movies do you like?")), (),
                              PERSON, "movies", 0)
    assert decisions.recommender_contexts(asked) == ("elicit",)
    both = SeekerObservation(1, (*asked.dialogue[:-1], Turn(index=1, role=Role.recommender, items_shown=["m2"],
                                                             text="Which stars would suit you best?")), SHOWN[1:2],
                             PERSON, "movies", 0)
    assert decisions.recommender_contexts(both) == ("recommend", "elicit")
    assert decisions.seeker_turn(observation(said=("ok",))) == 3


def bank(**wordings: list[str]):
    """A wording bank saying each key's texts (react reactions as react__seen_liked, ...)."""
    from environments.acts.wordings import Wording, WordingBank, WordingSource

    source = WordingSource(corpus="toy", splits=["train"], conversations=1, seeker_turns=1, kept=1)
    return WordingBank(source=source, wordings={key.replace("__", ":"): [Wording(text=t, count=1) for t in texts]
                                                for key, texts in wordings.items()})


def test_with_a_wording_bank_each_act_is_said_as_people_said_it():
    people = bank(react__unseen_liked=["sounds good, I'll check {title} out", "ooh I'll watch that one"],
                  react__seen_liked=["{Title} is one of my favorites!"], close=["thanks, have a good night"])
    taken = policy_move(observation(), [], [], [], policy(react=100), people)
    assert taken is not None and taken.reply.accept and taken.reply.text == "ooh I'll watch that one"  # no title
    own = policy_move(observation(shown=SHOWN[:3]), [], [], [], policy(react=100), people)
    assert own is not None and own.reply.text == "Get Out (2017) is one of my favorites!"  # the person's own film
    moves = [policy_move(observation(shown=(), seed=s), [], [], [], policy(close=100), people) for s in range(8)]
    closed = [m for m in moves if m is not None and m.reply.metadata["move"] == "close"]
    assert closed and {m.reply.text for m in closed} == {"thanks, have a good night"}


def test_seen_or_not_is_said_without_a_stance_as_often_as_people_did():
    people = bank(react__seen=["I've seen that one"] * 3, react__seen_liked=["Loved it"], react__unseen=["Nope"])
    seen = decisions.Reaction(SHOWN[1], 1, seen=True, like=True)
    said = Counter(decisions.reaction_wording(seen, people, (s,)) for s in range(400))
    assert said.keys() == {"seen", "seen_liked"} and 0.65 < said["seen"] / 400 < 0.85  # 3 plain to 1 liked
    unseen = decisions.Reaction(SHOWN[2], 2, seen=False, like=False)
    assert {decisions.reaction_wording(unseen, people, (s,)) for s in range(50)} == {"unseen"}  # no stance said
    assert decisions.reaction_wording(seen) == "seen_liked"  # no bank: the stance
    taken = decisions.Reaction(SHOWN[3], 3, seen=False, like=True, accept=True)
    assert decisions.reaction_wording(taken, people, (0,)) == "unseen_liked"


def test_a_move_the_bank_cannot_word_falls_back_to_crsims_own():
    people = bank(close=["thanks, have a good night"])  # no reactions
    move = policy_move(observation(shown=SHOWN[:3]), [], [], [], policy(react=100), people)
    plain = policy_move(observation(shown=SHOWN[:3]), [], [], [], policy(react=100))
    assert move is not None and plain is not None and move.reply.text == plain.reply.text


def test_a_taste_that_is_one_of_the_catalogs_kinds_is_stated_in_peoples_words():
    from agents.seekers.decisions import people_preference
    from agents.steps.seeker.answer import SeekerAnswer

    people = bank(preference=["I'm in the mood for {kinds} tonight", "what would you recommend?", "I don't like {kind}."])
    people.kinds = ["comedy", "horror"]
    answer = SeekerAnswer(answer="Not fussed about that. Scary, mostly. Comedies too.", has_preference=True,
                          fact_keys=["taste:scary", "taste:comedies"],
                          claims=[["taste", "scary", 1], ["taste", "comedies", 1]])
    said = people_preference(people, answer, observation(), answer.fact_keys)
    assert said == ("I'm in the mood for comedies tonight", ["taste:comedies"])  # only the kind it says is stated
    for seed in range(20):  # a liked kind is never said in a wording that turns it down
        picked = people_preference(people, answer, observation(seed=seed), answer.fact_keys)
        assert picked is not None and "don't" not in picked[0]
    # a film it liked and has not named goes in when the wording people said has room for it
    people = bank(preference=["I like {kinds} like {title}", "Something like {title}", "I love {kinds}"])
    people.kinds = ["comedy", "horror"]
    def said(liked=None):
        out = (people_preference(people, answer, observation(seed=seed), answer.fact_keys, liked) for seed in range(30))
        return {(text, tuple(keys)) for text, keys in out}

    with_film = said(("Superbad (2007)", "liked:Superbad", ["Comedy"]))
    assert ("I like comedies like Superbad (2007)", ("taste:comedies", "liked:Superbad")) in with_film
    assert ("Something like Superbad (2007)", ("liked:Superbad",)) in with_film  # the kind is still to say
    assert ("I love comedies", ("taste:comedies",)) in with_film
    assert said() == {("I love comedies", ("taste:comedies",))}  # no film to name: only wordings without one
    # a film of another kind is not offered with this one ("comedies like Heat")
    assert said(("Heat (1995)", "liked:Heat", ["Crime", "Drama"])) == {("I love comedies", ("taste:comedies",))}
    no_kind = answer.model_copy(update={"claims": [["taste", "scary", 1]], "fact_keys": ["taste:scary"]})
    assert people_preference(people, no_kind, observation(), no_kind.fact_keys) is None
    assert people_preference(None, answer, observation(), answer.fact_keys) is None


def test_small_talk_without_peoples_words_never_stands_for_an_answer():
    """"Okay, makes sense." takes in what was said: after a question it answers nothing."""
    told = observation(shown=())
    question = Turn(index=1, role=Role.recommender, text="What kind of movies do you like?")

    source = PolicySource(corpus="toy", splits=["train"], conversations=1, seeker_turns=100)
    talkative = SeekerPolicy(source=source, counts={c: {"chitchat": 100} for c in ("other", "elicit")},
                             reactions=RATES, min_count=1)

    def moves(dialogue):
        return [policy_move(SeekerObservation(1, dialogue, (), PERSON, "movies", s), [], [], [], talkative)
                for s in range(12)]

    def acknowledged(dialogue):
        return sum(m is not None and m.reply.metadata["move"] == "acknowledge" for m in moves(dialogue))

    assert acknowledged(told.dialogue) == 12
    assert acknowledged((*told.dialogue[:-1], question)) == 0  # the seeker answers instead

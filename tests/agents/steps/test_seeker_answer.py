"""The seeker answer step's LLM side: what it reads off a model's reply, and what it refuses."""

from __future__ import annotations

from agents.steps.seeker.answer import AnswerInput, Fact, SeekerAnswerStep, SeekerReplyText, facts_said
from agents.steps.text import question_part
from environments.models import Role, Turn
from crsim_testing import HashEncoder

FACTS = [Fact("cuisine", "cuisine: mexican", "Mexican, please."),
         Fact("price", "price range: cheap", "Something cheap."),
         Fact("room", "room: room quiet (room quiet)", "A quiet room."),
         Fact("tone", "tone: warm tone", "A warm tone.")]


def inputs(*seeker_said: str) -> AnswerInput:
    dialogue = []
    for text in seeker_said:
        dialogue += [Turn(index=len(dialogue), role=Role.recommender, text="What are you after?"),
                     Turn(index=len(dialogue) + 1, role=Role.seeker, text=text)]
    return AnswerInput(question="Anything else?", facts=FACTS, stated=frozenset(), dialogue=dialogue,
                       item_noun="restaurants", target_title="Place 02")


def test_the_facts_a_reply_states_are_read_off_its_words():
    assert facts_said("I'm after Mexican, somewhere cheap and quiet.", FACTS) == ["cuisine", "price", "room"]
    assert facts_said("a warm sound, please", FACTS) == ["tone"]  # the aspect's own word is not needed
    assert facts_said("Mexi food", FACTS) == []  # whole words only


def test_a_models_reply_becomes_an_answer_whose_facts_count_as_stated():
    answer = SeekerAnswerStep().accept(SeekerReplyText(answer="Cheap Mexican would be great", has_preference=True),
                                       inputs())
    assert answer.fact_keys == ["cuisine", "price"] and answer.fact_key == "cuisine"
    assert answer.claims == []  # words are not a claim: "I don't mind the noise" names noise too


def test_a_reply_already_sent_is_refused_and_a_new_one_is_not():
    step = SeekerAnswerStep()
    said = inputs("I'm looking for Mexican restaurants that are cheap and quiet.")
    again = SeekerReplyText(answer="I'm looking for Mexican restaurants that are cheap and quiet!", has_preference=True)
    longer = SeekerReplyText(answer="I'm looking for Mexican restaurants that are cheap and quiet. Also parking.",
                             has_preference=True)
    new = SeekerReplyText(answer="Somewhere cheap, I'd say.", has_preference=True)
    assert "repeats a message you already sent" in step.check(again, said)
    assert step.check(longer, said)  # the earlier message inside a longer one is still a repeat
    assert step.check(new, said) is None
    first = SeekerReplyText(answer="I'm looking for Mexican restaurants that are cheap!", has_preference=True)
    assert step.check(first, inputs()) is None  # nothing sent yet


def test_a_reply_that_opens_with_an_earlier_message_keeps_only_what_is_new():
    from agents.steps.seeker.answer import new_sentences

    sent = ["I'm looking for Mexican food that is cheap."]
    reply = ("I'm looking for Mexican food that is cheap. Somewhere quiet, please. "
             "To repeat: somewhere quiet, please. I'm")
    assert new_sentences(reply, sent) == "Somewhere quiet, please."
    assert new_sentences("I'm looking for Mexican food that is cheap.", sent) == ""


def test_a_reply_listing_more_than_two_new_wishes_or_running_long_is_refused():
    step = SeekerAnswerStep()
    three = SeekerReplyText(answer="Mexican, cheap and a quiet room.", has_preference=True)
    assert "at most 2" in step.check(three, inputs())
    # wishes said before count too: re-listing them is still a list
    said = AnswerInput(question="Anything else?", facts=FACTS, stated=frozenset({"cuisine"}), dialogue=[],
                       item_noun="restaurants", target_title="Place 02")
    assert "at most 2" in step.check(three, said)
    assert step.check(SeekerReplyText(answer="Cheap Mexican, please.", has_preference=True), said) is None
    listed = SeekerReplyText(answer="A budget-friendly Indian place in the city center with a set menu and rustic "
                                    "decor.", has_preference=True)  # wishes no fact reads, joined as a list
    assert "at most 2" in step.check(listed, said)
    assert step.check(SeekerReplyText(answer="Something cozy with a view.", has_preference=True), said) is None
    rambling = SeekerReplyText(answer="Well, you know, I have been thinking about this for quite a while and "
                                      "honestly it would be nice to find something cheap", has_preference=True)
    assert "words" in step.check(rambling, inputs())


class _Refusing:
    """A chat model that must not be asked."""

    def __getattr__(self, name):
        raise AssertionError(f"the model was used ({name})")


def test_a_model_is_given_only_what_the_offline_turn_states():
    step = SeekerAnswerStep(wording_mix=(0.0, 0.0), dont_know_rate=0.0)
    for seed in range(30):
        ask = AnswerInput(question="What else?", facts=FACTS, stated=frozenset(), dialogue=[], item_noun="restaurants",
                          target_title="Place 02", seed=seed, examples=["i;m looking for a …", "Maybe a …."])
        planned = step.plan(ask)
        assert 1 <= len(planned) <= 2
        assert [f.key for f in planned] == step.offline(ask).fact_keys[:2]
        variables = step.prompt_variables(ask)
        assert [line[2:] for line in variables["say_now"].splitlines()] == [f.match_text for f in planned]
        assert "i;m looking for a …" in variables["examples"]


async def test_a_turn_that_states_nothing_is_not_given_to_a_model():
    step = SeekerAnswerStep(_Refusing(), dont_know_rate=0.0)
    done = AnswerInput(question="Anything else?", facts=FACTS, stated=frozenset(f.key for f in FACTS), dialogue=[],
                       item_noun="restaurants", target_title="Place 02", open_question=True)
    answer = await step.run(done)
    assert answer.fact_keys == [] and answer.answer  # the offline "nothing else comes to mind"


def test_one_reply_does_not_open_two_wishes_the_same_way():
    from agents.steps.seeker.answer import Fact, Wording, _one_frame_each

    facts = [Fact(k, k, "") for k in ("a", "b", "c")]
    wordings = [Wording("Mostly I care about drive sound."), Wording("mostly I care about tube amps"),
                Wording("Cheap would be great.")]
    kept, said = _one_frame_each(facts, wordings)
    assert [f.key for f in kept] == ["a", "c"] and [w.text for w in said] == [wordings[0].text, wordings[2].text]
    same_value = [Wording("General Petite, if possible.", ("categories", "General Petite", 1)),
                  Wording("I'm thinking general petite.", ("division", "General Petite", 1))]
    kept, _ = _one_frame_each(facts[:2], same_value)
    assert [f.key for f in kept] == ["a"]


def test_the_question_is_read_without_the_statements_before_it():
    assert question_part("Ines's Oven is known for its Chinese cooking. Any cuisine in mind, like thai?") \
        == "Any cuisine in mind, like thai?"
    assert question_part("No, it's attentive. What ambience do you like? Rustic? Cozy?") \
        == "What ambience do you like? Rustic? Cozy?"
    assert question_part("Any favourite ambience? Rustic, elegant?") == "Any favourite ambience? Rustic, elegant?"
    assert question_part("Yes, it's late-night.") == "Yes, it's late-night."  # asks nothing: read whole


def test_an_item_answer_before_the_question_does_not_pull_the_match_to_its_words():
    encoder = HashEncoder()
    step = SeekerAnswerStep(encoder=encoder, threshold=0.2)
    question = "Place 02 has a quiet room, a quiet room with a warm tone. Any cuisine in mind, like mexican?"
    assert step.asked_fact(question, FACTS).key == "cuisine"
    assert encoder.texts == 1 + len(FACTS)  # the question part once, then the facts


def test_without_a_policy_it_sometimes_answers_with_the_wanted_thing_alone():
    from dataclasses import replace

    from agents.steps.seeker.answer import TERSE_ANSWER

    price = Fact("price", "price range: cheap", "Something cheap would be great.", "price", ("price_range", "cheap", 1),
                 phrase="something cheap")
    facts = [price, *FACTS[:1]]
    step = SeekerAnswerStep(encoder=HashEncoder(), threshold=0.0, dont_know_rate=0.0)
    asked = [AnswerInput(question="What price range?", facts=facts, stated=frozenset(), dialogue=[], item_noun="r",
                         target_title="Place 02", seed=seed, terse_rate=TERSE_ANSWER) for seed in range(300)]
    replies = [step.offline(a) for a in asked]
    terse = [r for r in replies if r.answer == "Something cheap."]
    assert 0.1 < len(terse) / len(replies) < 0.3
    assert all(r.fact_keys == ["price"] and r.claims == [["price_range", "cheap", 1]] for r in terse)
    assert not any(step.offline(replace(a, terse_rate=0.0)).answer == "Something cheap." for a in asked)


def test_a_wording_without_a_full_stop_gets_one_before_the_next():
    from agents.steps.seeker.answer import _ended

    assert _ended("I want a patch cable") == "I want a patch cable."
    assert _ended("Nice!") == "Nice!" and _ended("Is it quiet?") == "Is it quiet?" and _ended("Cheap.") == "Cheap."


def test_with_nothing_to_say_before_its_first_word_it_is_just_looking():
    from agents.steps.seeker.answer import NOTHING_LEFT, NOTHING_YET, AnswerInput, SeekerAnswerStep

    step = SeekerAnswerStep(None)
    first = step._nothing_new(AnswerInput(question="What are you looking for?", facts=[], stated=frozenset(),
                                          dialogue=[], item_noun="products", target_title="X", seed=1))
    later = step._nothing_new(AnswerInput(question="Anything else?", facts=[], stated=frozenset({"kind"}),
                                          dialogue=[], item_noun="products", target_title="X", seed=1))
    assert first.answer in NOTHING_YET and later.answer in NOTHING_LEFT

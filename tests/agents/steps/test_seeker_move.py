"""The seeker's talk moves worded by a language model: the rules of `SeekerMoveStep.check`
and a whole episode through the stub server."""

from __future__ import annotations

from crsim_testing import run_llm_episode

from agents.llm import backends
from agents.seekers.target_biased import TalkRates
from agents.steps.seeker.move import MoveInput, SeekerLine, SeekerMoveStep
from environments.models import Role, Turn

DIALOGUE = (Turn(index=0, role=Role.seeker, text="Something spicy, please."),
            Turn(index=1, role=Role.recommender, text="How about these?"))
INPUTS = MoveInput("say that the second one is not for you", "Not the second one, I think.", DIALOGUE,
                   "restaurants", "Casa Verde", ("Golden Wok", "Casa Verde"), ("the second one",))


def test_a_move_must_say_which_item_and_be_new_and_never_name_the_target():
    step = SeekerMoveStep()
    assert step.check(SeekerLine(text="Nah, the second one isn't my thing."), INPUTS) is None
    assert "which item" in step.check(SeekerLine(text="Nah, not my thing."), INPUTS)
    assert "before" in step.check(SeekerLine(text="something spicy please"), INPUTS)
    assert "never name" in step.check(SeekerLine(text="The second one, Casa Verde? No."), INPUTS)
    assert step.offline(INPUTS).text == "Not the second one, I think."
    long = ("I'm sorry, but the second one doesn't quite fit what I had in mind. I'm looking for a fancy "
            "restaurant with a good view, on the expensive side.")
    assert "words" in step.check(SeekerLine(text=long), INPUTS)  # 32 words, as Qwen2.5-1.5B wrote


def test_a_move_in_the_recommenders_voice_is_refused():
    step = SeekerMoveStep()
    for said in ("I don't think the second one is the right choice for you.",  # what Qwen2.5-1.5B wrote
                 "The second one doesn't fit your budget.", "Not the second one; I'd recommend Golden Wok.",
                 "I don't have any Korean places like the second one in my list.",
                 "The second one doesn't fit the Italian theme you're looking for."):
        assert "recommend nothing" in step.check(SeekerLine(text=said), INPUTS), said
    assert step.check(SeekerLine(text="The second one isn't for me. Thanks for your help!"), INPUTS) is None


def test_an_llm_seeker_words_its_moves_through_the_server(openai_stub, tiny_catalog, hash_encoder):
    model = backends.openai("stub-model", base_url=openai_stub.url, timeout=5, max_retries=0)
    outcome = run_llm_episode(model, tiny_catalog, hash_encoder, max_turns=6,
                              talk_rates=TalkRates(react=0.5, ask=0.3, name=0.1))
    moves = [t for t in outcome.episode.turns if t.role == Role.seeker and t.metadata.get("move")]
    calls = [c for c in outcome.llm_calls if c.step == "seeker_move"]
    assert moves and len(calls) >= len(moves) and all(c.ok for c in calls)
    assert all(t.text.startswith("STUB: ") for t in moves)
    reacted = [t for t in moves if t.metadata["move"] in ("like", "pass", "unknown", "ask")]
    assert all(t.metadata["about"] for t in reacted)

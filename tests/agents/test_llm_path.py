"""Every language step through a scripted chat model, in a full episode.

The scripted model answers by looking at which prompt it received, like a real model
would; one variant answers the seeker prompt with garbage so the repair-then-fallback
path runs inside an episode.
"""

from crsim_testing import ScriptedChatModel, run_llm_episode

from environments.models import Role, TerminationReason


def test_all_language_steps_go_through_the_chat_model(tiny_catalog, hash_encoder):
    episode = run_llm_episode(ScriptedChatModel(prompts=[]), tiny_catalog, hash_encoder).episode
    assert episode.termination is TerminationReason.max_turns
    texts = [t.text for t in episode.turns]
    assert texts[1] == "SCRIPTED: something spicy" and texts[2] == "SCRIPTED: which cuisine?"
    steps = [c.step for c in episode.llm_calls]
    assert steps.count("summarize_reviews") == 1 and steps.count("seeker_answer") == 2
    assert steps.count("clarify_question") == 2 and all(c.ok for c in episode.llm_calls)
    assert "SCRIPTED" in texts[3]  # the model worded every seeker turn (what to say is planned offline)


def test_unparseable_answers_are_repaired_then_fall_back_to_offline(tiny_catalog, hash_encoder):
    model = ScriptedChatModel(broken_seeker=True, prompts=[])
    episode = run_llm_episode(model, tiny_catalog, hash_encoder).episode
    assert episode.termination is TerminationReason.max_turns
    failed = [c for c in episode.llm_calls if c.step == "seeker_answer"]
    assert len(failed) == 4 and not any(c.ok for c in failed)  # 2 turns x (first try + repair)
    assert sum(c.repaired for c in failed) == 2
    seeker_texts = [t.text for t in episode.turns if t.role == Role.seeker]
    assert all(text and "SCRIPTED" not in text for text in seeker_texts)  # offline answers instead
    assert hash_encoder.calls > 0

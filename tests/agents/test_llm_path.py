"""Every language step through a scripted chat model, in a full episode.

The scripted model answers by looking at which prompt it received, like a real model
would; one variant answers the seeker prompt with garbage so the repair-then-fallback
path runs inside an episode.
"""

import asyncio
import json
from typing import Any

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from agents.base import GraphAgent
from agents.recommenders.popularity import build as build_popularity
from agents.seekers.target_biased import SeekerContext, build_graph
from agents.steps.seeker_answer import SeekerAnswerStep
from agents.steps.summarize import SummarizeReviewsStep
from environments.models import Role, TerminationReason
from environments.single_target import SingleTargetSetup
from simulators.episode import run_episode


class ScriptedChatModel(BaseChatModel):
    """Answers each crsim prompt with a fixed, recognisable JSON object."""

    broken_seeker: bool = False
    prompts: list[str] = []

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        system = str(messages[0].content)
        self.prompts.append(system)
        if "summarise customer reviews" in system:
            answer = json.dumps({"summary": "Reviewers loved the food."})
        elif "conversational recommender" in system:
            answer = json.dumps({"question": "SCRIPTED: which cuisine?", "aspect": "cuisine"})
        elif self.broken_seeker:
            answer = "I think... {not json"
        else:
            answer = json.dumps({"answer": "SCRIPTED: something spicy", "has_preference": True})
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=answer))])


def _agents(setup, model, encoder):
    recommender = build_popularity(setup.recommender_catalog, llm=model)
    context = SeekerContext(SeekerAnswerStep(model, encoder=encoder), SummarizeReviewsStep(model), 3)
    seeker = GraphAgent(Role.seeker, build_graph(), context, memory_keys=("facts", "stated"))
    return recommender, seeker


def _episode(setup, model, encoder):
    recommender, seeker = _agents(setup, model, encoder)
    return asyncio.run(run_episode(setup, recommender, seeker, index=0, run_seed=0, max_turns=2,
                                   config_hash="llm")).episode


def test_all_language_steps_go_through_the_chat_model(tiny_catalog, hash_encoder):
    setup = SingleTargetSetup(tiny_catalog, target_pool_size=5)
    model = ScriptedChatModel(prompts=[])
    episode = _episode(setup, model, hash_encoder)
    assert episode.termination is TerminationReason.max_turns
    texts = [t.text for t in episode.turns]
    assert texts[1] == "SCRIPTED: something spicy" and texts[2] == "SCRIPTED: which cuisine?"
    steps = [c.step for c in episode.llm_calls]
    assert steps.count("summarize_reviews") == 1 and steps.count("seeker_answer") == 2
    assert steps.count("clarify_question") == 2 and all(c.ok for c in episode.llm_calls)
    assert hash_encoder.calls == 0  # the offline path never ran


def test_unparseable_answers_are_repaired_then_fall_back_to_offline(tiny_catalog, hash_encoder):
    setup = SingleTargetSetup(tiny_catalog, target_pool_size=5)
    episode = _episode(setup, ScriptedChatModel(broken_seeker=True, prompts=[]), hash_encoder)
    assert episode.termination is TerminationReason.max_turns
    failed = [c for c in episode.llm_calls if c.step == "seeker_answer"]
    assert len(failed) == 4 and not any(c.ok for c in failed)  # 2 turns x (first try + repair)
    assert sum(c.repaired for c in failed) == 2
    seeker_texts = [t.text for t in episode.turns if t.role is Role.seeker]
    assert all(text and "SCRIPTED" not in text for text in seeker_texts)  # offline answers instead
    assert hash_encoder.calls > 0

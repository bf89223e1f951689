"""A served seeker (`crsim serve seeker=NAME`) plays the same episode as in process: the
same seed and user, the same recommender moves, the same answers, and it says when and why
the episode ended and what the seeker was after."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agents.base import recommender_from_function
from agents.remote.protocol import TurnRequest
from environments.base import Recommendation
from simulators.engine.build import agent_config, build_agent, build_setup
from simulators.engine.episode import episode_seed, run_episode
from simulators.engine.hydra_setup import compose_config
from simulators.serve.seeker import SeekerHost

QUESTION, ITEMS = "How about these two?", ["i01", "i05"]


def setup_and_seeker(catalog_dir: Path):
    from omegaconf import OmegaConf

    config = compose_config([f"environment.catalog={catalog_dir}", "environment.target_pool_size=6"])
    OmegaConf.resolve(config)
    setup = build_setup(config.environment)
    return setup, build_agent("seeker", agent_config(config, "seeker", setup), setup)


@pytest.mark.parametrize("index", [0, 3])
def test_a_served_seeker_answers_as_it_does_in_process(tiny_catalog_dir, index):
    setup, seeker = setup_and_seeker(tiny_catalog_dir)
    fixed = recommender_from_function(lambda observation: Recommendation(question=QUESTION, ranked_ids=ITEMS))
    local = asyncio.run(run_episode(setup, {"seeker": seeker, "recommender": fixed}, index=index, run_seed=0,
                                    max_turns=4, config_hash="x")).episode
    said = [t.text for t in local.turns if t.role == "seeker"]
    feedback = [t.feedback for t in local.turns if t.role == "seeker"]

    host = SeekerHost(setup, seeker)

    async def served() -> list:
        replies = [await host.move(TurnRequest(conversation_id="c", reset=True, role="seeker", turn=0,
                                               seed=episode_seed(0, index), episode=index))]
        while len(replies) < len(said) and replies[-1].ended is None:
            replies.append(await host.move(TurnRequest(conversation_id="c", role="seeker", turn=len(replies),
                                                       message=QUESTION, items=ITEMS)))
        return replies

    replies = asyncio.run(served())
    assert [r.text for r in replies] == said and [r.feedback for r in replies] == feedback
    if local.termination.value != "max_turns":
        assert replies[-1].ended == local.termination.value and replies[-1].targets == local.targets
        assert "c" not in host.episodes  # an ended conversation is forgotten
    else:
        assert all(r.ended is None for r in replies)


def test_a_move_for_a_conversation_never_started_is_refused(tiny_catalog_dir):
    setup, seeker = setup_and_seeker(tiny_catalog_dir)
    with pytest.raises(LookupError, match="unknown conversation 'nope'"):
        asyncio.run(SeekerHost(setup, seeker).move(TurnRequest(conversation_id="nope", role="seeker", turn=1)))

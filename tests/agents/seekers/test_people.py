"""`seeker=people`: the real person's later turns of a grounded conversation, said again in order."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from agents.seekers.people import QUIT_TEXT, build
from crsim_testing import import_redial_fixture
from environments.base import Recommendation
from environments.catalog import load_catalog_dir
from environments.errors import CrsimError
from environments.models import Episode, Role, Turn
from environments.single_target import GroundedSetup
from environments.single_target.grounded import PersonTranscript

SEEKER, RECOMMENDER = Role.seeker.value, Role.recommender.value


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return import_redial_fixture(tmp_path_factory, n_train=12, n_test=6)


def _real(corpus: Path, conversation_id: str) -> Episode:
    lines = (corpus / "dialogues.jsonl").read_text().splitlines()
    return next(e for e in map(Episode.model_validate_json, lines) if e.id == conversation_id)


async def _play(setup: GroundedSetup, seeker, index: int, rounds: int = 50) -> tuple[list, object]:
    """Recommender (a fixed ranking) and the seeker, round after round, until the seeker ends it."""
    env = setup.new_episode()
    first = env.reset(seed=index, options={"episode_index": index})
    state = seeker.init_state(first[SEEKER])
    replies = []
    for _ in range(rounds):
        env.step(RECOMMENDER, Recommendation("What else?", ranked_ids=env.observe(RECOMMENDER).candidates[:4]))
        reply, state = await seeker.respond(env.observe(SEEKER), state)
        replies.append(reply)
        if env.step(SEEKER, reply).terminated:
            break
    return replies, env


async def test_says_the_person_s_later_turns_in_order_then_quits(corpus):
    setup = GroundedSetup(load_catalog_dir(corpus), split="test_data", seeker_knows="transcript")
    seeker = build()
    checked = 0
    for index, conversation in enumerate(setup.conversations):
        real = _real(corpus, conversation.conversation_id)
        people = [t.text for t in real.turns if t.role == SEEKER and t.text.strip()]
        # said again up to the target's first naming: the later turns answer the recommender's suggestion of it
        first = next(i for i, t in enumerate(real.turns) if t.role == SEEKER and t.text.strip())
        named = next((i for i, t in enumerate(real.turns) if i > first and (
            conversation.target in t.items_shown or conversation.target in t.metadata.get("mentioned", []))), None)
        before = [t.text for t in real.turns[:named] if t.role == SEEKER and t.text.strip()]
        assert conversation.unprompted == len(before) - 1 < len(people) - 1  # the fixture's recommender names it
        # all of them when told so (the fixture's people talk about their target from their second turn)
        setup.conversations[index] = replace(conversation, unprompted=None)
        replies, env = await _play(setup, seeker, index)
        said = [r.text for r in replies[:-1]]
        assert said == people[1:]  # every later turn of the person, verbatim, after the opening one
        assert replies[-1].quit and replies[-1].text == QUIT_TEXT and not replies[-1].accept
        assert not any(r.feedback or r.accept for r in replies)
        transcript = env.evaluation().turns
        assert [t.text for t in transcript if t.role == SEEKER] == people + [QUIT_TEXT]
        assert transcript[0].metadata.get("opening") and env.evaluation().profile == {
            "conversation_id": conversation.conversation_id, "turns": len(people) - 1}
        # the recommender's last ranking came after the person's last turn
        assert env.evaluation().evaluations[-1].turn == len(people)
        checked += len(said)
        setup.conversations[index] = conversation
        cut, _ = await _play(setup, seeker, index)
        assert [r.text for r in cut[:-1]] == before[1:]
    assert checked > 0  # the fixture's people said more than their opening


async def test_resumes_after_logged_moves(corpus):
    setup = GroundedSetup(load_catalog_dir(corpus), split="test_data", seeker_knows="transcript")
    conversation = next(c for c in setup.conversations if len(c.later) >= 2)
    index = setup.conversations.index(conversation)
    conversation = setup.conversations[index] = replace(conversation, unprompted=None)  # all its later turns
    env = setup.new_episode()
    observation = env.reset(seed=0, options={"episode_index": index})[SEEKER]
    seeker = build()
    logged, _ = await _play(setup, seeker, index, rounds=1)  # one move made, then taken over
    moves = [Turn(index=i, role=SEEKER, text=r.text, metadata=r.metadata) for i, r in enumerate(logged)]
    state = seeker.resume_state(observation, moves)
    reply, state = await seeker.respond(observation, state)
    assert reply.text == conversation.later[1] and state["said"] == 2
    # without memory it counts its own turns in the transcript (the opening not among them)
    env.step(RECOMMENDER, Recommendation("?", ranked_ids=env.observe(RECOMMENDER).candidates[:4]))
    env.step(SEEKER, (await seeker.respond(env.observe(SEEKER), {}))[0])
    env.step(RECOMMENDER, Recommendation("?", ranked_ids=env.observe(RECOMMENDER).candidates[:4]))
    reply, _ = await seeker.respond(env.observe(SEEKER), {})
    assert reply.text == conversation.later[1]


async def test_refuses_any_other_profile(corpus):
    seeker = build()
    for knows in ("target", "history"):
        setup = GroundedSetup(load_catalog_dir(corpus), split="test_data", seeker_knows=knows)
        observation = setup.new_episode().reset(seed=0, options={"episode_index": 0})[SEEKER]
        with pytest.raises(CrsimError, match="environment=grounded environment.seeker_knows=transcript"):
            await seeker.respond(observation, {})
        with pytest.raises(CrsimError, match="seeker_knows=transcript"):
            seeker.init_state(observation)
    assert isinstance(GroundedSetup(load_catalog_dir(corpus), split="test_data", seeker_knows="transcript")
                      .new_episode().reset(seed=0, options={"episode_index": 0})[SEEKER].profile, PersonTranscript)

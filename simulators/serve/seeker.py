"""A crsim seeker behind HTTP (`crsim serve seeker=NAME`): a simulated user for a CRS that
is tested somewhere else.

The seeker is only half of what crsim simulates: what it wants comes from the environment
(a user of the pool, a hidden target) and what it sees from the items on screen. So each
conversation runs a whole episode of the environment on the server: `reset` starts one
(`seed`, `episode`) and the seeker answers the environment's opening; every later request
is the CRS's move (its utterance, the ids it recommends), applied to the episode as a
recommender move would be, and the reply is the seeker's answer. When the episode ends
(accepted, quit) the reply says why and names the targets, so the caller can score it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agents.remote.protocol import SeekerTurnReply, TurnRequest
from environments.base import Environment, EnvironmentSetup, Recommendation, SeekerReply
from environments.models import Role
from simulators.serve.conversations import MAX_CONVERSATIONS, Conversations


@dataclass
class Episode:
    env: Environment
    state: dict[str, Any]


class SeekerHost:
    """Episodes of `setup`, each with `agent` as its seeker, kept by conversation id."""

    def __init__(self, setup: EnvironmentSetup, agent: Any, max_conversations: int = MAX_CONVERSATIONS):
        roles = set(setup.roles)
        if roles != {Role.seeker.value, Role.recommender.value}:
            raise ValueError(f"environment '{setup.name}' has roles {sorted(roles)}; a served seeker needs an "
                             "environment of a seeker and a recommender")
        self.setup, self.agent = setup, agent
        self.episodes: Conversations[Episode] = Conversations(max_conversations)

    async def move(self, move: TurnRequest) -> SeekerTurnReply:
        if move.reset:
            env = self.setup.new_episode()
            first = env.reset(seed=move.seed, options={"episode_index": move.episode})
            episode = Episode(env, self.agent.init_state(first[Role.seeker.value]))
        else:
            episode = self.episodes.get(move.conversation_id)
            index = self.setup.agent_catalog(Role.recommender.value)
            known = [i for i in dict.fromkeys(move.items or []) if index is None or i in index.item_index]
            result = episode.env.step(Role.recommender.value, Recommendation(question=move.message, ranked_ids=known))
            if result.termination is not None:
                return self._ended(episode, move.conversation_id, SeekerReply(text=""), result.termination.value)
        observation = episode.env.observe(Role.seeker.value)
        reply, episode.state = await self.agent.respond(observation, episode.state)
        result = episode.env.step(Role.seeker.value, reply)
        if result.termination is not None:
            return self._ended(episode, move.conversation_id, reply, result.termination.value)
        self.episodes.keep(move.conversation_id, episode)
        return _reply(reply)

    def _ended(self, episode: Episode, conversation_id: str, reply: SeekerReply, why: str) -> SeekerTurnReply:
        self.episodes.forget(conversation_id)
        return _reply(reply).model_copy(update={"ended": why, "targets": list(episode.env.evaluation().targets)})


def _reply(reply: SeekerReply) -> SeekerTurnReply:
    return SeekerTurnReply(text=reply.text, feedback=dict(reply.feedback), accept=reply.accept, quit=reply.quit)

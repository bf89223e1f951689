"""The people's own seeker turns, said again: `seeker=people` on grounded episodes.

Under `environment=grounded environment.seeker_knows=transcript` the seeker's profile is a
`PersonTranscript`: the real person's seeker turns after their opening (which the
environment itself posts at reset), in order. At its k-th reply this seeker says the k-th
of them verbatim; when they run out it quits (`SeekerReply(quit=True)`, with an empty
utterance: the person said nothing more). It gives no feedback and never accepts: it
exists so a recommender can be scored on what people revealed (the people's column of
`crsim validate ranking`), beside what a simulated seeker reveals on the same
conversations. No language model.

Its only memory is how many of the person's turns it has said (`said`); taking over a
logged episode half-way, that is the number of its role's earlier moves (the opening is
not a move), so it goes on with the next turn of the person.

Graph per turn: `say` → END.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langgraph.graph import END, START, StateGraph

from agents.base import GraphAgent, TurnState
from environments.base import SeekerObservation, SeekerReply
from environments.errors import CrsimError
from environments.models import Role, Turn
from environments.single_target.grounded import PersonTranscript

QUIT_TEXT = ""  # what it says when the person's turns have run out: nothing (the person said nothing more)


class PeopleState(TurnState, total=False):
    said: int  # how many of the person's later turns it has said


def own_turns(observation: SeekerObservation) -> int:
    """Its own earlier turns in the transcript, the environment's opening lines left out."""
    return sum(t.role == Role.seeker and not t.metadata.get("opening") for t in observation.dialogue)


def transcript_of(observation: SeekerObservation) -> PersonTranscript:
    profile = observation.profile
    if not isinstance(profile, PersonTranscript):
        raise CrsimError(f"seeker=people says a real person's own turns again, and the environment gave it a "
                         f"{type(profile).__name__}: use environment=grounded environment.seeker_knows=transcript")
    return profile


async def say(state: PeopleState) -> dict[str, Any]:
    observation: SeekerObservation = state["observation"]
    transcript = transcript_of(observation)
    k = state["said"] if "said" in state else own_turns(observation)
    if k >= len(transcript.turns):
        return {"action": SeekerReply(text=QUIT_TEXT, quit=True, metadata={"person_turn": None}), "said": k}
    return {"action": SeekerReply(text=transcript.turns[k], metadata={"person_turn": k}), "said": k + 1}


def initial_memory(observation: SeekerObservation) -> dict[str, Any]:
    transcript_of(observation)  # refuse a wrong profile before the first turn
    return {"said": own_turns(observation)}


def resume_memory(observation: Any, moves: Sequence[Turn]) -> dict[str, Any]:
    """Taking over after `moves` (its role's logged moves, the opening not among them)."""
    return {"said": len(moves)}


def build_graph() -> Any:
    graph = StateGraph(PeopleState)
    graph.add_node("say", say)
    graph.add_edge(START, "say")
    graph.add_edge("say", END)
    return graph.compile(name="people_seeker")


def build(catalog: Any | None = None, llm: Any | None = None) -> GraphAgent[None]:
    """Hydra factory for `seeker=people` (needs neither a catalog nor a language model)."""
    return GraphAgent(Role.seeker.value, build_graph(), None, memory_keys=("said",),
                      initial_memory=initial_memory, resume=resume_memory)


__all__: Sequence[str] = ("build", "build_graph", "QUIT_TEXT")

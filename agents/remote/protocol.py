"""The wire formats a remote agent is spoken to in; pydantic models, so both ends check them.

**crsim/1** (crsim's own; `crsim serve` speaks it). One endpoint per move, `POST {url}/turn`,
with a `TurnRequest`: the conversation's id (one per episode, unique per run), `reset` on
its first move (the server forgets anything it kept under that id and starts the agent
afresh), the message it answers, the history as the agent's role sees it (`Turn`s; left out
with `send_history: false`, then the server keeps its own), what is on screen, and on the
first move the candidate ids. A recommender answers with a `TurnReply`: its text, the items
it recommends best first (`items`), optionally a score per candidate of the first move
(`scores`, which keeps ties as they were), and `metadata` it wants logged. `GET {url}/`
describes the server (`ServerInfo`). Ids are the catalog's ids; a CRS that only knows titles
puts them in its text and leaves `items` out: the client links them to the catalog.

A served *seeker* (`crsim serve seeker=NAME`) is the other way round, for a CRS under test
in another toolkit: `reset` (with `seed` and `episode`, which of the environment's users it
plays) starts an episode of crsim's environment on the server and the seeker answers its
opening; each later request carries the CRS's utterance (`message`) and what it recommends
(`items`), and the reply is a `SeekerTurnReply` (text, reactions, accept or quit, and once
the conversation ended, why and what the seeker was after).

**usersimcrs** (UserSimCRS's `iEvaLMAgent` wrapper and the CRSs CRS Arena serves through
iEvaLM-CRS's `serve_model.py`): `POST {url}` with `{"context": [earlier utterances, oldest
first], "message": the seeker's latest}`; the reply is the CRS's utterance as plain text
(status 200); `GET {url}` answers "Model is running.". No conversation id, no items: the
whole dialogue travels each time and the items are the titles in the text.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from environments.models import Turn

PROTOCOL = "crsim/1"
REMOTE_KEY = "remote"  # turn metadata of a remote move: what its exchange took (simulators/results/remote.py)
Shape = Literal["crsim", "usersimcrs"]
SHAPES: tuple[str, ...] = ("crsim", "usersimcrs")


class _Message(BaseModel):
    model_config = ConfigDict(extra="ignore")  # a newer peer may send more; what we read is checked


class ShownItem(_Message):
    """An item on screen: what the agent's role can read about it."""

    id: str
    title: str


class TurnRequest(_Message):
    """One move asked of a remote agent (crsim/1)."""

    protocol: str = PROTOCOL
    conversation_id: str = Field(description="One per episode; unique per run, so concurrent episodes stay apart.")
    reset: bool = Field(default=False, description="First move of the conversation: start the agent afresh.")
    role: str = Field(description="The role asked to move: recommender or seeker.")
    turn: int = Field(description="Recommendation rounds completed so far.")
    message: str = Field(default="", description="The other side's latest utterance.")
    history: list[Turn] | None = Field(default=None, description="The transcript as this role sees it.")
    shown: list[ShownItem] = Field(default_factory=list, description="Items on screen, in order.")
    candidates: list[str] | None = Field(default=None, description="Candidate ids (first move only).")
    item_noun: str = "item"
    seed: int = Field(default=0, description="The episode's seed, for an agent that draws at random.")
    items: list[str] | None = Field(default=None, description="To a seeker: the ids the CRS recommends, best first.")
    episode: int = Field(default=0, description="To a seeker, with reset: which of the environment's users to be.")


class TurnReply(_Message):
    """A remote recommender's move (crsim/1)."""

    text: str = Field(description="What it says.")
    items: list[str] | None = Field(default=None, description="Recommended ids, best first; none: link titles.")
    scores: list[float | None] | None = Field(
        default=None, description="One score per candidate of the first move; null: not ranked.")
    metadata: dict[str, Any] = Field(default_factory=dict, description="Extras to log with the move.")


class SeekerTurnReply(_Message):
    """A served seeker's move (crsim/1): what it says, its reactions, whether it ended."""

    text: str
    feedback: dict[str, str] = Field(default_factory=dict, description="Item id -> like / dislike / ...")
    accept: bool = False
    quit: bool = False
    ended: str | None = Field(default=None, description="Why the conversation ended (accepted, ...), if it did.")
    targets: list[str] = Field(default_factory=list, description="What the seeker was after (once ended).")
    metadata: dict[str, Any] = Field(default_factory=dict)


class ServerInfo(_Message):
    """What `GET /` of a crsim/1 server says about it."""

    protocol: str = PROTOCOL
    role: str
    agent: str
    catalog_fingerprint: str = Field(default="", description="Which catalog its ids come from.")
    items: int = Field(default=0, description="Items in that catalog.")


class UserSimCRSRequest(_Message):
    """The UserSimCRS / CRS Arena request: the dialogue so far and the latest message."""

    context: list[str]
    message: str


def wire_scores(scores: Sequence[float]) -> list[float | None]:
    """`scores` for JSON, which has no NaN or infinity: an unranked candidate (NaN, -inf) is
    null, +inf one above the largest finite score; order and ties stay as they were."""
    values = [float(s) for s in scores]
    finite = [s for s in values if math.isfinite(s)]
    top = (max(finite) if finite else 0.0) + 1.0
    return [s if math.isfinite(s) else (top if s == math.inf else None) for s in values]


def scores_from_wire(scores: Sequence[float | None]) -> list[float]:
    """The inverse of `wire_scores`: null is -inf (not ranked)."""
    return [-math.inf if s is None else float(s) for s in scores]


def problem_line(error: ValidationError, whole: str) -> str:
    """The first thing wrong with a message, on one line: "field 'text': Field required"
    (`whole` names the message when the problem is not in one field)."""
    first = error.errors()[0]
    return f"field '{'.'.join(str(p) for p in first['loc']) or whole}': {first['msg']}"

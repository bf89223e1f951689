"""Offline evaluation of a recommender on logged dialogues (CRAG §4.2, ReDial / Reddit style).

For every recommender turn of a test dialogue that mentions items nobody mentioned
before, the recommender gets the dialogue *before* that turn and ranks the candidates;
the new items of the turn are the targets (items already in the dialogue are neither
targets nor recommendable: re-naming them is not a recommendation). Recall@K and NDCG@K
per turn (K = 5, 10, 15, 20), averaged over turns with bootstrap 95% CIs.

What the recommender may see, and what it may not:
- the prior turns' text only (role, index, text): no `items_shown`, no seeker
  `metadata.mentioned` tags, no `feedback` — ReDial's feedback comes from a questionnaire
  filled in after the dialogue, which would leak the answer;
- a catalog view with every item's metadata, no reviews, no `users.jsonl` (it holds
  every seeker's likes, test seekers included), and as interactions one pseudo-user per
  *training* dialogue (the paper's pseudo-users): the items mentioned in it minus those
  its seeker said they disliked. `interactions.jsonl` of a ReDial import is keyed by
  worker id across splits and is not used.
- candidates: the items recommenders mentioned in training dialogues (CRAG's catalog Q,
  taken from training data so the test targets do not define it), or the whole catalog,
  in catalog order either way. A target outside the candidates is a miss (logged at rank
  n_candidates + 1).

Every recommender is scored on its own ranking restricted to the candidates. In `crsim run`
the candidates are the recommender's whole catalog view, so most recommenders (popularity,
BM25, dense, SnipRec) score the view; here the candidates are part of it, so a move's
scores over the view are read onto the candidates by item id and its `ranked_ids` lose the
items outside them (`CandidateSpace.scores`).

Each evaluated turn is logged as a one-turn `Episode` (the prior dialogue, the recommender's
move with its notes — e.g. CRAG's retrieved, kept and generated items —, its targets and one
`TurnEvaluation`), so `crsim report` and `crsim replay --rescore` read the output like any run.
"""

from __future__ import annotations

import asyncio
import traceback
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

import numpy as np

from environments.base import Recommendation, RecommenderObservation
from environments.catalog import Catalog
from environments.catalog.interactions import InteractionMatrix
from environments.catalog.store import DIALOGUES
from environments.errors import CrsimError
from environments.models import Episode, Role, TargetRank, TerminationReason, Turn, TurnEvaluation
from environments.ranking import rank_targets, scores_from_action, tie_broken_order
from simulators.metrics import Metric, NDCGAt, RecallAt

CUTOFFS = (5, 10, 15, 20)
TOP_LOGGED = 20
ENVIRONMENT = "dialogue_eval"


def dialogue_metrics(cutoffs: Sequence[int] = CUTOFFS) -> list[Metric]:
    return [*(RecallAt(k) for k in cutoffs), *(NDCGAt(k) for k in cutoffs)]


def metric_specs(cutoffs: Sequence[int] = CUTOFFS) -> list[dict[str, Any]]:
    """The same metrics as config entries (written to each output's config.yaml for reports)."""
    return [*({"_target_": "simulators.metrics.RecallAt", "k": k} for k in cutoffs),
            *({"_target_": "simulators.metrics.NDCGAt", "k": k} for k in cutoffs)]


def mentioned_in(turn: Turn) -> list[str]:
    """Items a logged turn names: the recommender's shown items, the seeker's tagged mentions."""
    if turn.role == Role.recommender:
        return list(turn.items_shown)
    tagged = turn.metadata.get("mentioned", [])
    return [str(i) for i in tagged] if isinstance(tagged, list) else []


def public_turn(turn: Turn) -> Turn:
    """What a recommender may read of a logged turn: who spoke, and the words."""
    return Turn(index=turn.index, role=turn.role, text=turn.text)


@dataclass(frozen=True, slots=True)
class EvalTurn:
    dialogue: Episode
    position: int  # transcript index of the evaluated recommender turn
    number: int  # 1-based count of recommender turns up to and including it
    prior: tuple[Turn, ...]
    targets: tuple[str, ...]


def evaluation_turns(dialogue: Episode) -> list[EvalTurn]:
    """The recommender turns of a dialogue that mention new items, each with its prior dialogue."""
    turns, seen, found, number = dialogue.turns, set(), [], 0
    for position, turn in enumerate(turns):
        if turn.role == Role.recommender:
            number += 1
            new = [i for i in dict.fromkeys(turn.items_shown) if i not in seen]
            if new:
                prior = tuple(public_turn(t) for t in turns[:position] if t.text.strip())
                found.append(EvalTurn(dialogue, position, number, prior, tuple(new)))
        seen.update(mentioned_in(turn))
    return found


def pseudo_users(train: Sequence[Episode], item_ids: Sequence[str]) -> InteractionMatrix:
    """One row per training dialogue: the items mentioned in it, minus those its seeker disliked."""
    from scipy.sparse import csr_matrix

    column = {item_id: position for position, item_id in enumerate(item_ids)}
    rows, cols, users = [], [], []
    for dialogue in train:
        disliked = set(map(str, dialogue.profile.get("disliked", []) or []))
        liked = {column[i] for t in dialogue.turns for i in mentioned_in(t) if i in column and i not in disliked}
        if liked:
            rows.extend([len(users)] * len(liked))
            cols.extend(sorted(liked))
            users.append(dialogue.id)
    matrix = csr_matrix((np.ones(len(rows), np.float32), (rows, cols)), shape=(len(users), len(item_ids)))
    return InteractionMatrix(matrix, users, list(item_ids))


@dataclass(frozen=True)
class CandidateSpace:
    """The candidates inside the recommenders' catalog view, and how a move is read onto them.

    Candidates are kept in the view's order: when they are the whole view, scores aligned
    with the view and scores aligned with the candidates are then the same thing, so a
    move never has two readings."""

    ids: tuple[str, ...]
    index: dict[str, int]  # candidate id -> position among the candidates
    view_index: dict[str, int]  # view item id -> row
    rows: np.ndarray  # each candidate's row in the view

    @classmethod
    def of(cls, candidates: Sequence[str], view: Catalog) -> CandidateSpace:
        rows = np.fromiter((view.item_index[i] for i in candidates), dtype=np.int64, count=len(candidates))
        if np.any(np.diff(rows) <= 0):
            raise ValueError("candidates must be distinct items in the catalog's order")
        return cls(tuple(candidates), {item_id: n for n, item_id in enumerate(candidates)}, view.item_index, rows)

    def scores(self, action: Recommendation) -> np.ndarray:
        """One score per candidate: the move's ranking restricted to the candidates.

        Scores with one entry per view item are taken at the candidates' rows; `ranked_ids`
        keep their order without the items outside the candidates. An id the view does not
        hold, or scores of any other length, are errors as in the environment."""
        n_view = len(self.view_index)
        if action.scores is not None and np.shape(action.scores) == (n_view,) and len(self.ids) != n_view:
            action = replace(action, scores=np.asarray(action.scores, dtype=np.float64)[self.rows])
        elif action.scores is None and action.ranked_ids is not None:
            unknown = next((i for i in action.ranked_ids if i not in self.view_index), None)
            if unknown is not None:
                raise ValueError(f"recommendation ranks unknown item '{unknown}'")
            action = replace(action, ranked_ids=[i for i in action.ranked_ids if i in self.index])
        return scores_from_action(action, self.ids, self.index)


@dataclass
class DialogueEvalSetup:
    """Everything the recommenders under test share: their catalog view, candidates (in the
    view's order), the turns."""

    catalog: Catalog
    candidates: tuple[str, ...]
    turns: list[EvalTurn]
    train_ids: list[str]
    test_ids: list[str]

    def stats(self) -> dict[str, Any]:
        targets = [t for turn in self.turns for t in turn.targets]
        inside = set(self.candidates)
        matrix = self.catalog.interactions()
        return {"train_dialogues": len(self.train_ids), "test_dialogues": len(self.test_ids),
                "pseudo_users": matrix.shape[0] if matrix is not None else 0,
                "items_with_interactions": int((matrix.matrix.getnnz(axis=0) > 0).sum()) if matrix else 0,
                "candidates": len(self.candidates), "evaluated_turns": len(self.turns), "targets": len(targets),
                "targets_in_candidates": sum(t in inside for t in targets) / len(targets) if targets else 0.0}


def load_dialogues(directory: Path) -> list[Episode]:
    from simulators.results.runlog import load_run

    path = Path(directory).expanduser() / DIALOGUES
    if not path.is_file():
        raise CrsimError(f"{path}: not found; import a dialogue dataset first (crsim data import redial ...)")
    run = load_run(path)
    if run.problems:
        first = run.problems[0]
        raise CrsimError(f"{first.path}, line {first.line}: {first.message}")
    return run.episodes


def prepare(directory: Path, *, train_splits: Sequence[str] = ("train_data",), test_split: str = "test_data",
            candidates: Literal["train", "catalog"] = "train", limit: int | None = None) -> DialogueEvalSetup:
    """Read an imported dialogue dataset and set up the leak-free evaluation (module docstring)."""
    directory = Path(directory).expanduser()
    full = Catalog.load(directory)
    dialogues = load_dialogues(directory)
    splits = sorted({str(d.profile.get("split")) for d in dialogues})
    train = [d for d in dialogues if d.profile.get("split") in set(train_splits)]
    test = [d for d in dialogues if d.profile.get("split") == test_split]
    if test_split in train_splits:
        raise CrsimError(f"split '{test_split}' is both a training and the test split")
    for name, chosen, wanted in (("training", train, ", ".join(train_splits)), ("test", test, test_split)):
        if not chosen:
            raise CrsimError(f"{directory / DIALOGUES}: no {name} dialogues (split {wanted}); "
                             f"the splits there are: {', '.join(splits)}")
    if limit is not None:
        test = test[:limit]
    matrix = pseudo_users(train, full.item_ids)
    view = Catalog(full.manifest, full.items, interactions=matrix)
    if candidates == "train":
        pool = {i for d in train for t in d.turns if t.role == Role.recommender for i in t.items_shown}
        chosen_candidates = tuple(i for i in full.item_ids if i in pool)
    else:
        chosen_candidates = tuple(full.item_ids)
    turns = [turn for dialogue in test for turn in evaluation_turns(dialogue)]
    return DialogueEvalSetup(view, chosen_candidates, turns, [d.id for d in train], [d.id for d in test])


def _jsonable(metadata: dict[str, Any]) -> dict[str, Any]:
    """The agent's notes on its move (retrieved, kept, generated ids...), kept if they serialise."""
    import json

    try:
        return json.loads(json.dumps(metadata))
    except (TypeError, ValueError):
        return {}


def _turn_seed(seed: int, turn: EvalTurn) -> int:
    return zlib.crc32(f"{seed}:{turn.dialogue.id}:{turn.position}".encode())


def _record(turn: EvalTurn, action: Any, space: CandidateSpace, seed: int) -> TurnEvaluation:
    scores = space.scores(action)
    order = tie_broken_order(scores, np.random.default_rng(seed))
    index = space.index
    ranks = rank_targets(scores, order, [(t, index[t]) for t in turn.targets if t in index])
    n = len(space.ids)  # a target outside the candidates cannot be recommended: ranked after all of them
    ranks += [TargetRank(item_id=t, rank=n + 1, n_better=n, n_tied=1) for t in turn.targets if t not in index]
    return TurnEvaluation(turn=1, source_turn=turn.position, n_candidates=n, ranks=ranks,
                          top=[space.ids[i] for i in order[:TOP_LOGGED]])


async def evaluate(agent: Any, setup: DialogueEvalSetup, *, config_hash: str, seed: int = 0,
                   concurrency: int = 1, on_episode: Callable[[Episode, list[Any]], None] | None = None
                   ) -> list[Episode]:
    """One logged `Episode` per evaluated turn. Turns of one dialogue run in order, carrying the
    agent's memory (an utterance is linked once); dialogues run concurrently (LLM I/O)."""
    from agents.llm.recording import recording

    candidates = setup.candidates
    space = CandidateSpace.of(candidates, setup.catalog)
    by_dialogue: dict[str, list[EvalTurn]] = {}
    for turn in setup.turns:
        by_dialogue.setdefault(turn.dialogue.id, []).append(turn)
    gate = asyncio.Semaphore(max(1, concurrency))
    episodes: list[Episode] = []
    numbering = {(t.dialogue.id, t.position): n for n, t in enumerate(setup.turns)}

    async def one_dialogue(turns: list[EvalTurn]) -> None:
        state: dict[str, Any] | None = None
        async with gate:
            for turn in turns:
                turn_seed = _turn_seed(seed, turn)
                observation = RecommenderObservation(turn=turn.number, dialogue=turn.prior, shown=(),
                                                     candidates=candidates, item_noun=setup.catalog.item_noun,
                                                     episode_seed=turn_seed)
                error, evaluations, move = None, [], []
                with recording() as recorder:
                    try:
                        state = agent.init_state(observation) if state is None else state
                        action, state = await agent.respond(observation, state)
                        evaluations = [_record(turn, action, space, turn_seed)]
                        move = [Turn(index=turn.position, role=Role.recommender, text=action.question,
                                     metadata=_jsonable(action.metadata))]
                    except Exception:  # one bad turn must not end the evaluation
                        error = traceback.format_exc()
                episode = Episode(
                    id=f"{turn.dialogue.id}-t{turn.position}", index=numbering[(turn.dialogue.id, turn.position)],
                    config_hash=config_hash, seed=turn_seed, environment=ENVIRONMENT, targets=list(turn.targets),
                    profile={"dialogue": turn.dialogue.id, "turn": turn.position,
                             "split": turn.dialogue.profile.get("split")},
                    turns=[*turn.prior, *move], evaluations=evaluations, error=error,
                    termination=TerminationReason.error if error else TerminationReason.max_turns,
                    llm_calls=recorder.summaries())
                episodes.append(episode)
                if on_episode:
                    on_episode(episode, list(recorder.records))

    await asyncio.gather(*(one_dialogue(turns) for turns in by_dialogue.values()))
    return sorted(episodes, key=lambda e: e.index)

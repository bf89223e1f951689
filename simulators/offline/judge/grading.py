"""The conversations of a CRS Arena import and the judges that grade them."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


from environments.errors import CrsimError
from environments.models import Episode, Role

SATISFACTION = "satisfaction"
PEPPER_MEAN = "pepper_mean"


# --------------------------------------------------------------------------------- the data
@dataclass
class ArenaData:
    """The conversations to grade and the votes between CRSs (`votes.jsonl`, may be empty)."""

    directory: Path
    episodes: list[Episode]
    votes: list[dict[str, Any]]

    def human_labels(self) -> tuple[list[str], list[str]]:
        """(dialogue-level, turn-level) label names present, in first-seen order."""
        dialogue: dict[str, None] = {}
        turn: dict[str, None] = {}
        for episode in self.episodes:
            if episode.profile.get("satisfied") is not None:
                dialogue[SATISFACTION] = None
            dialogue.update(dict.fromkeys(episode.profile.get("labels") or {}))
            for t in episode.turns:
                turn.update(dict.fromkeys(t.metadata.get("labels") or {}))
        return list(dialogue), list(turn)


def stratified_sample(episodes: Sequence[Episode], size: int, seed: int = 0) -> list[Episode]:
    """`size` conversations spread evenly over the CRSs (`profile.crs`), drawn by `seed` among the
    labelled ones and kept in file order.

    Why: the import lists each CRS's conversations together, so the first N (`--limit`) would
    grade a few CRSs only and leave nothing to rank; a small model's time buys a sample, and the
    ranking needs every CRS in it. A CRS with fewer labelled conversations than its share gives
    all it has, and the rest goes to the others in turn.
    """
    import random

    rng = random.Random(seed)
    by_crs: dict[str, list[int]] = {}
    for index, episode in enumerate(episodes):
        if episode.profile.get("labels") or episode.profile.get("satisfied") is not None:
            by_crs.setdefault(str(episode.profile.get("crs")), []).append(index)
    pools = {crs: rng.sample(indices, len(indices)) for crs, indices in sorted(by_crs.items())}
    chosen: list[int] = []
    while len(chosen) < size and any(pools.values()):
        for crs in pools:
            if pools[crs] and len(chosen) < size:
                chosen.append(pools[crs].pop())
    return [episodes[i] for i in sorted(chosen)]


def load_arena(directory: Path, split: str | None = None, limit: int | None = None,
               sample: int | None = None, seed: int = 0) -> ArenaData:
    """The conversations of a CRS Arena import (only `split`, e.g. `closed`, when given; the first
    `limit`, or a `sample` stratified over the CRSs drawn by `seed`)."""
    import orjson

    from simulators.validity.turns import corpus_episodes

    episodes = [e for e in corpus_episodes(directory, split)]
    if not any(e.profile.get("labels") or e.profile.get("satisfied") is not None for e in episodes):
        raise CrsimError(f"{directory}: no conversation carries human labels or satisfaction "
                         "(import CRS Arena with `crsim data import crsarena ... --eval-labels crs_arena_eval.json`)")
    if sample is not None:
        episodes = stratified_sample(episodes, sample, seed)
    if limit is not None:
        episodes = episodes[:limit]
    votes_path = Path(directory).expanduser() / "votes.jsonl"
    votes = [orjson.loads(line) for line in votes_path.read_bytes().splitlines() if line.strip()] \
        if votes_path.is_file() else []
    return ArenaData(Path(directory), episodes, votes)


def render_dialogue(turns: Sequence[Any]) -> str:
    """'User: ...' / 'Recommender: ...' lines, as PEPPER's judge reads a conversation (empty turns left out)."""
    return "\n".join(f"{'User' if t.role == Role.seeker else 'Recommender'}: {t.text}" for t in turns if t.text.strip())


# ---------------------------------------------------------------------------------- judges
@dataclass(frozen=True, slots=True)
class Comparison:
    level: str  # "dialogue" or "turn"
    judge: str  # the judge's score name
    human: str  # the human label name (or SATISFACTION)


@dataclass
class Judged:
    """One conversation's grades: dialogue-level {score: value}, turn-level {turn index: {score: value}}."""

    episode: Episode
    dialogue: dict[str, float | None] = field(default_factory=dict)
    turns: dict[int, dict[str, float | None]] = field(default_factory=dict)
    calls: list[Any] = field(default_factory=list)


class AspectsJudge:
    """One prompt per CRSArena-Eval aspect (`agents/steps/judge/aspects.py`)."""

    name = "aspects"

    def __init__(self, llm: Any, aspects: Sequence[str]):
        from agents.steps.judge.aspects import ASPECTS, AspectJudgeStep

        self.steps = {a: AspectJudgeStep(llm, a) for a in aspects}
        self.dialogue_scores = [a for a in aspects if ASPECTS[a].level == "dialogue"]
        self.turn_scores = [a for a in aspects if ASPECTS[a].level == "turn"]
        self.overall = "dialogue_overall" if "dialogue_overall" in aspects else (
            self.dialogue_scores[0] if self.dialogue_scores else None)

    def comparisons(self, dialogue_labels: Sequence[str], turn_labels: Sequence[str]) -> list[Comparison]:
        rows = [Comparison("dialogue", a, a) for a in self.dialogue_scores if a in dialogue_labels]
        rows += [Comparison("turn", a, a) for a in self.turn_scores if a in turn_labels]
        if self.overall is not None and SATISFACTION in dialogue_labels:
            rows.append(Comparison("dialogue", self.overall, SATISFACTION))
        return rows

    async def grade(self, episode: Episode) -> Judged:
        from agents.steps.judge.aspects import AspectInput

        judged = Judged(episode)
        whole = AspectInput(render_dialogue(episode.turns))
        for aspect in self.dialogue_scores:
            judged.dialogue[aspect] = (await self.steps[aspect].run(whole)).score  # type: ignore[attr-defined]
        for index, turn in enumerate(episode.turns):
            if turn.role != Role.recommender or not self.turn_scores:
                continue
            inputs = AspectInput(render_dialogue(episode.turns[:index]), turn.text)
            judged.turns[index] = {a: (await self.steps[a].run(inputs)).score  # type: ignore[attr-defined]
                                   for a in self.turn_scores}
        return judged


class PepperRubricJudge:
    """PEPPER's rubric judge (`agents/steps/judge.JudgeStep`): proactiveness, coherence,
    personalization 1-5 and their mean; CRS Arena has no stated preferences ('(not known)')."""

    name = "pepper"
    turn_scores: tuple[str, ...] = ()

    def __init__(self, llm: Any):
        from agents.steps.judge.rubric import CRITERIA, JudgeStep

        self.steps = {c: JudgeStep(llm, c) for c in CRITERIA}
        self.dialogue_scores = [*CRITERIA, PEPPER_MEAN]
        self.overall = PEPPER_MEAN

    def comparisons(self, dialogue_labels: Sequence[str], turn_labels: Sequence[str]) -> list[Comparison]:
        rows = [Comparison("dialogue", PEPPER_MEAN, label) for label in dialogue_labels]
        if "dialogue_overall" in dialogue_labels:
            rows += [Comparison("dialogue", c, "dialogue_overall") for c in self.steps]
        return rows

    async def grade(self, episode: Episode) -> Judged:
        from agents.steps.judge.rubric import JudgeInput

        inputs = JudgeInput(dialogue=render_dialogue(episode.turns), preferences="")
        judged = Judged(episode)
        for criterion, step in self.steps.items():
            judged.dialogue[criterion] = (await step.run(inputs)).score
        got = [v for c in self.steps if (v := judged.dialogue[c]) is not None]
        judged.dialogue[PEPPER_MEAN] = sum(got) / len(got) if got else None
        return judged


def build_judge(kind: str, llm: Any, labels: Sequence[str] | None, data: ArenaData) -> tuple[Any, list[Comparison]]:
    """The judge and the comparisons it is scored on; `labels` narrows the human labels (None: all)."""
    from agents.steps.judge.aspects import ASPECTS

    dialogue_labels, turn_labels = data.human_labels()
    present = [*dialogue_labels, *turn_labels]
    if labels:
        unknown = [label for label in labels if label not in present]
        if unknown:
            raise CrsimError(f"--labels: no human label {', '.join(map(repr, unknown))} in {data.directory} "
                             f"(present: {', '.join(present) or 'none'})")
        dialogue_labels = [label for label in dialogue_labels if label in labels]
        turn_labels = [label for label in turn_labels if label in labels]
    if kind == "pepper":
        if turn_labels and labels:
            raise CrsimError(f"--judge pepper grades whole conversations; turn-level labels "
                             f"({', '.join(turn_labels)}) need --judge aspects")
        judge: Any = PepperRubricJudge(llm)
    elif kind == "aspects":
        wanted = [a for a in ASPECTS if a in dialogue_labels or a in turn_labels]
        if SATISFACTION in dialogue_labels and "dialogue_overall" not in wanted:
            wanted.append("dialogue_overall")  # satisfaction is compared with the overall grade
        if not wanted:
            raise CrsimError(f"--judge aspects has a prompt for {', '.join(ASPECTS)} and satisfaction; "
                             f"{data.directory} has none of them")
        judge = AspectsJudge(llm, wanted)
    else:
        raise CrsimError(f"unknown judge '{kind}' (known: aspects, pepper)")
    comparisons = judge.comparisons(dialogue_labels, turn_labels)
    if not comparisons:
        raise CrsimError(f"nothing to compare: the judge '{kind}' grades none of the labels asked for")
    return judge, comparisons


async def grade_all(judge: Any, episodes: Sequence[Episode], concurrency: int = 8,
                    on_done: Callable[[Judged], None] | None = None) -> list[Judged]:
    """Grade every conversation (at most `concurrency` at once), recording each one's LLM calls."""
    from agents.llm.recording import CallRecorder, recording

    gate = asyncio.Semaphore(concurrency)

    async def one(episode: Episode) -> Judged:
        async with gate:
            with recording(CallRecorder()) as recorder:
                judged = await judge.grade(episode)
            judged.calls = list(recorder.records)
        if on_done is not None:
            on_done(judged)
        return judged

    return list(await asyncio.gather(*(one(e) for e in episodes)))

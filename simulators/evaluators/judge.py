"""PEPPER's LLM judge as a post-run evaluator: proactiveness, coherence, personalization 1-5.

`experiment=pepper` lists it under `evaluators:` with its own backend,
`llm@judge.llm` (`crsim run experiment=pepper llm@judge.llm=openai ...`). Each episode is
graded per criterion from its dialogue and its seeker's general preferences (logged in
the seeker's first reply). Offline there is no judge: `evaluate` returns None, so no
table is printed and no `eval-judge.csv` is written — the grades are absent, not faked.
An episode whose grade could not be obtained has an empty cell.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from agents.steps.judge.rubric import CRITERIA, JudgeInput, JudgeStep
from environments.models import Episode, Role


class PepperJudge:
    name = "judge"

    def __init__(self, llm: Any = None, criteria: Sequence[str] = CRITERIA, concurrency: int = 8):
        self.llm = llm
        self.steps = [JudgeStep(llm, criterion) for criterion in criteria]
        self.concurrency = concurrency

    def evaluate(self, episodes: Sequence[Episode], setup: Any) -> Any:
        if self.llm is None:
            return None
        import pandas as pd

        rows = asyncio.run(self._grade_all(episodes))
        frame = pd.DataFrame(rows, columns=["episode_id", *(s.criterion for s in self.steps)])
        return frame

    def summary_lines(self, frame: Any) -> list[str]:
        means = [f"{s.criterion} {frame[s.criterion].mean():.2f} (n={int(frame[s.criterion].notna().sum())})"
                 for s in self.steps]
        return ["judge means (1-5): " + ", ".join(means)]

    async def _grade_all(self, episodes: Sequence[Episode]) -> list[dict[str, Any]]:
        gate = asyncio.Semaphore(self.concurrency)

        async def grade(episode: Episode) -> dict[str, Any]:
            inputs = judge_input(episode)
            async with gate:
                scores = [await step.run(inputs) for step in self.steps]
            return {"episode_id": episode.id,
                    **{step.criterion: score.score for step, score in zip(self.steps, scores)}}

        return list(await asyncio.gather(*(grade(e) for e in episodes if e.error is None)))


def judge_input(episode: Episode) -> JudgeInput:
    turns = episode.turns
    dialogue = "\n".join(f"{'User' if t.role == Role.seeker else 'Recommender'}: {t.text}" for t in turns)
    preferences = next((str(t.metadata["preferences"]) for t in turns
                        if t.role == Role.seeker and t.metadata.get("preferences")), "")
    return JudgeInput(dialogue=dialogue, preferences=preferences)

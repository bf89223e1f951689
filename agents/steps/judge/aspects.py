"""An LLM judge of CRSArena-Eval's human-label aspects: one prompt per aspect, on the annotators' scale.

Turn-level aspects (`relevance`, `interestingness`) grade one recommender response given the
conversation up to it; dialogue-level aspects grade the whole conversation. Each prompt
(`agents/prompts/arena_judge_<aspect>.md`) asks the annotators' question in our own words with
their scale (No / Somewhat / Yes as 0-2; efficiency 0-1; the overall impression's five points as
0-4), so a grade can be read beside a label directly (correlations do not need the same scale).
Like PEPPER's judge there is no offline judge: without a language model, or when its answer
cannot be parsed, the grade is absent (`score` None), never made up.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, Field, create_model

from agents.steps.base import LanguageStep

Level = Literal["turn", "dialogue"]


@dataclass(frozen=True, slots=True)
class Aspect:
    name: str
    level: Level
    low: int
    high: int


#: CRSArena-Eval's aspects, in the order its README lists them, with the scales of its labels.
ASPECTS: dict[str, Aspect] = {a.name: a for a in (
    Aspect("relevance", "turn", 0, 2),
    Aspect("interestingness", "turn", 0, 2),
    Aspect("understanding", "dialogue", 0, 2),
    Aspect("task_completion", "dialogue", 0, 2),
    Aspect("interest_arousal", "dialogue", 0, 2),
    Aspect("efficiency", "dialogue", 0, 1),
    Aspect("dialogue_overall", "dialogue", 0, 4),
)}


def _score_model(aspect: Aspect) -> type[BaseModel]:
    """`{"score": int in [low, high] | None, "reason": str}`: an out-of-scale answer fails parsing
    (and gets the one repair request)."""
    return create_model(  # type: ignore[call-overload,no-any-return]
        f"{aspect.name.title().replace('_', '')}Score",
        score=(int | None, Field(default=None, ge=aspect.low, le=aspect.high,
                                 description=f"{aspect.low}-{aspect.high}; None: no grade.")),
        reason=(str, Field(default="", description="One sentence.")),
    )


SCORE_MODELS: dict[str, type[BaseModel]] = {name: _score_model(aspect) for name, aspect in ASPECTS.items()}


@dataclass(frozen=True, slots=True)
class AspectInput:
    dialogue: str  # the whole conversation (dialogue level) or the turns before the response (turn level)
    response: str = ""  # turn level: the recommender response graded


class AspectJudgeStep(LanguageStep[AspectInput, BaseModel]):
    name = "judge_relevance"
    prompt_name = "arena_judge_relevance"
    output_model = SCORE_MODELS["relevance"]

    def __init__(self, llm: object | None, aspect: str, role: str = "judge"):
        if aspect not in ASPECTS:
            raise ValueError(f"judge aspect {aspect!r}; expected one of {', '.join(ASPECTS)}")
        super().__init__(llm, role)
        self.aspect = ASPECTS[aspect]
        self.name = f"judge_{aspect}"  # type: ignore[misc]
        self.prompt_name = f"arena_judge_{aspect}"  # type: ignore[misc]
        self.output_model = SCORE_MODELS[aspect]  # type: ignore[misc]

    def offline(self, inputs: AspectInput) -> BaseModel:
        return self.output_model()

    def prompt_variables(self, inputs: AspectInput) -> dict[str, object]:
        return {"dialogue": inputs.dialogue, "response": inputs.response}

"""An LLM judge's grade of one conversation on one criterion (PEPPER §3.3), 1-5 by a rubric.

Each criterion has its own prompt (`agents/prompts/pepper_judge_<criterion>.md`) with its
rubric; the judge sees the dialogue and the user's general preferences (which the
recommender never saw). There is no offline judge: without a language model, or when its
answer cannot be parsed, the grade is absent (`score` None), never made up.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel, Field

from agents.steps.base import LanguageStep

CRITERIA = ("proactiveness", "coherence", "personalization")


class JudgeScore(BaseModel):
    score: int | None = Field(default=None, ge=1, le=5, description="1 (worst) to 5 (best); None: no grade.")
    reason: str = Field(default="", description="One sentence.")


@dataclass(frozen=True, slots=True)
class JudgeInput:
    dialogue: str
    preferences: str


class JudgeStep(LanguageStep[JudgeInput, JudgeScore]):
    name = "judge"
    prompt_name = "pepper_judge_proactiveness"
    output_model = JudgeScore

    def __init__(self, llm: object | None, criterion: str, role: str = "judge"):
        if criterion not in CRITERIA:
            raise ValueError(f"judge criterion {criterion!r}; expected one of {', '.join(CRITERIA)}")
        super().__init__(llm, role)
        self.criterion = criterion
        self.name = f"judge_{criterion}"  # type: ignore[misc]
        self.prompt_name = f"pepper_judge_{criterion}"  # type: ignore[misc]

    def offline(self, inputs: JudgeInput) -> JudgeScore:
        return JudgeScore()

    def prompt_variables(self, inputs: JudgeInput) -> dict[str, object]:
        return {"dialogue": inputs.dialogue, "preferences": inputs.preferences or "(not known)"}

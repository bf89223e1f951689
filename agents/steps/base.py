"""A language step: one typed function with an LLM implementation and an offline one.

The LLM path renders the step's prompt file, asks the configured chat model, and parses
the answer into the step's pydantic output (with one repair attempt). When that fails the
failure is recorded (it shows in the episode's `llm_calls`) and the step falls back to its
offline implementation explicitly — an agent never continues on a silently empty answer.
With no chat model configured (`llm=offline`) only the offline path runs.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel

I = TypeVar("I")
O = TypeVar("O", bound=BaseModel)


_CAPTURED: ContextVar[list[tuple[Any, Any]] | None] = ContextVar("crsim_captured_steps", default=None)


@contextmanager
def capture_steps() -> Iterator[list[tuple[Any, Any]]]:
    """Collect (step, inputs) of every step run inside the block, offline or not: real inputs
    for measuring a model on each step (`simulators/offline/llm_steps.py`)."""
    found: list[tuple[Any, Any]] = []
    token = _CAPTURED.set(found)
    try:
        yield found
    finally:
        _CAPTURED.reset(token)


def note_step_inputs(step: Any, inputs: Any) -> None:
    """Record inputs a step is given without going through `run` (a cache hit, an offline
    shortcut), so the step report sees them too; nothing happens outside `capture_steps`."""
    captured = _CAPTURED.get()
    if captured is not None:
        captured.append((step, inputs))


def capturing() -> bool:
    """Whether a `capture_steps` block is active (to skip building inputs nobody will read)."""
    return _CAPTURED.get() is not None


class LanguageStep(ABC, Generic[I, O]):
    name: ClassVar[str]
    prompt_name: ClassVar[str]
    output_model: ClassVar[type[BaseModel]]
    # What the language model is asked to fill, when less than `output_model` (bookkeeping
    # fields a model need not write: `accept` turns it into `output_model`).
    llm_output_model: ClassVar[type[BaseModel] | None] = None
    # Completion tokens the answer needs at least: raises a lower `max_tokens` on the model
    # for this step's calls (None: the model's setting serves every answer of this step).
    completion_tokens: ClassVar[int | None] = None

    def __init__(self, llm: Any | None = None, role: str = "agent"):
        self.llm = llm
        self.role = role

    async def run(self, inputs: I) -> O:
        captured = _CAPTURED.get()
        if captured is not None:
            captured.append((self, inputs))
        if self.llm is None:
            return self.offline(inputs)
        from agents.llm.structured import LLMStepError, run_structured
        from agents.prompts import load_prompt

        try:
            output = await run_structured(
                self.llm, load_prompt(self.prompt_name), self.prompt_variables(inputs),
                self.answer_model(inputs), step=self.name, role=self.role,
                check=lambda output: self.check(output, inputs), completion_tokens=self.completion_tokens,
            )
        except LLMStepError:
            return self.offline(inputs)
        return self.accept(output, inputs)  # type: ignore[arg-type]

    @abstractmethod
    def offline(self, inputs: I) -> O:
        """Deterministic implementation without a language model."""

    @abstractmethod
    def prompt_variables(self, inputs: I) -> dict[str, Any]:
        """Values for the placeholders of the step's prompt file."""

    def answer_model(self, inputs: I) -> type[BaseModel]:
        """The schema the model answers in: `llm_output_model` or `output_model`, or one shaped
        by the inputs (a list as long as asked: a grammar-constrained model cannot run on)."""
        return self.llm_output_model or self.output_model

    def check(self, output: BaseModel, inputs: I) -> str | None:
        """Why a well-formed LLM answer breaks a rule of the step (it is then repaired, and
        falls back offline if the repair breaks it too); None when it is fine."""
        return None

    def accept(self, output: O, inputs: I) -> O:
        """Post-check an LLM answer (e.g. enforce a rule the prompt asked for); a step with an
        `llm_output_model` turns that into its `output_model` here."""
        return output

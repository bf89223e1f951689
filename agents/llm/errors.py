"""The errors a language-model call can end in, kept apart so every LLM module can raise them.

A step that gets no usable answer raises `LLMStepError` and falls back offline; an error
that must end the episode (a spent budget, a replay miss, a misconfigured backend) is an
`LLMFatalError`, which `run_structured` records and re-raises unchanged.
"""

from __future__ import annotations


class LLMStepError(RuntimeError):
    """A language step got no usable answer; the caller decides what to do instead."""

    def __init__(self, step: str, reason: str) -> None:
        super().__init__(f"LLM step {step!r} failed: {reason}")
        self.step = step
        self.reason = reason


class LLMFatalError(Exception):
    """Base for backend errors that must end the episode (e.g. a spent budget).

    `run_structured` records these and re-raises them unchanged instead of turning them
    into `LLMStepError`, which callers answer by falling back to the offline step.
    """


class LLMConfigError(LLMFatalError):
    """The backend refused the request as misconfigured (HTTP 401/403/404: key, permission,
    model name). Retrying or falling back offline would hide it: every later call would
    fail the same way and the run would quietly become an offline run."""

"""A per-run token and cost budget for language-model calls.

Runs cost money: a sweep must stop before it overspends. The runner opens one `RunBudget`
for the whole run (a context variable, inherited by every episode task); each model call
first checks it and then charges what it used. Once exhausted, the next call raises
`BudgetExceeded` — an `LLMFatalError`, so no step quietly falls back offline — the episode
ends with `TerminationReason.budget`, and the runner starts no new episode.

Cost comes from litellm's price table (`litellm.cost_per_token`) when it knows the model;
calls of unknown models are counted in `unpriced_calls` and cost nothing. Answers served
from the response cache cost nothing and are not charged.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from agents.llm.errors import LLMFatalError


class BudgetExceeded(LLMFatalError):
    """The run's token or cost budget is spent."""


@dataclass
class RunBudget:
    max_tokens: int | None = None
    max_cost_usd: float | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    calls: int = 0
    unpriced_calls: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    @property
    def exhausted(self) -> bool:
        over_tokens = self.max_tokens is not None and self.tokens >= self.max_tokens
        over_cost = self.max_cost_usd is not None and self.cost_usd >= self.max_cost_usd
        return over_tokens or over_cost

    def check(self) -> None:
        if self.exhausted:
            raise BudgetExceeded(f"run budget exhausted: {self.describe()}")

    def charge(self, model: str, input_tokens: int | None, output_tokens: int | None) -> float | None:
        """Count one call against the budget; returns its cost (None: model not priced)."""
        tokens_in, tokens_out = input_tokens or 0, output_tokens or 0
        cost = call_cost(model, tokens_in, tokens_out)
        with self._lock:
            self.calls += 1
            self.input_tokens += tokens_in
            self.output_tokens += tokens_out
            if cost is None:
                self.unpriced_calls += 1
            else:
                self.cost_usd += cost
        return cost

    def describe(self) -> str:
        limits = []
        if self.max_tokens is not None:
            limits.append(f"{self.tokens}/{self.max_tokens} tokens")
        if self.max_cost_usd is not None:
            limits.append(f"${self.cost_usd:.4f}/${self.max_cost_usd:.4f}")
        return ", ".join(limits) or "no limit"

    def usage(self) -> dict[str, Any]:
        return {"calls": self.calls, "input_tokens": self.input_tokens, "output_tokens": self.output_tokens,
                "cost_usd": round(self.cost_usd, 6), "unpriced_calls": self.unpriced_calls,
                "max_tokens": self.max_tokens, "max_cost_usd": self.max_cost_usd, "exhausted": self.exhausted}


def call_cost(model: str, input_tokens: int | None, output_tokens: int | None) -> float | None:
    """USD for one call: 0 when no tokens were used, None when the model is not priced."""
    if not (input_tokens or output_tokens):
        return 0.0
    return price(model, input_tokens or 0, output_tokens or 0)


def price(model: str, input_tokens: int, output_tokens: int) -> float | None:
    """USD for one call from litellm's (local) price table; None when the model is unknown."""
    prices = unit_prices(model)
    if prices is None:
        return None
    return input_tokens * prices[0] + output_tokens * prices[1]


@lru_cache(maxsize=128)
def unit_prices(model: str) -> tuple[float, float] | None:
    """(USD per input token, USD per output token), looked up once per model: the lookup
    (and, for unknown models, litellm's exception) costs more than a whole call's
    bookkeeping otherwise. Tiered prices above very long prompts are not modelled."""
    import os

    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    try:
        import litellm

        litellm.suppress_debug_info = True  # else it prints a provider list for unknown models
        per_input, _ = litellm.cost_per_token(model=model, prompt_tokens=1, completion_tokens=0)
        _, per_output = litellm.cost_per_token(model=model, prompt_tokens=0, completion_tokens=1)
    except Exception:  # noqa: BLE001 - litellm raises a variety of errors for unknown models
        return None
    return float(per_input), float(per_output)


_CURRENT: ContextVar[RunBudget | None] = ContextVar("crsim_run_budget", default=None)


def current_budget() -> RunBudget | None:
    return _CURRENT.get()


@contextmanager
def budget_scope(budget: RunBudget | None) -> Iterator[RunBudget | None]:
    token = _CURRENT.set(budget)
    try:
        yield budget
    finally:
        _CURRENT.reset(token)

"""Chat models that stand in for another one: same name, same generation parameters.

The response cache and the concurrency limit wrap a backend's chat model. Prompt hashes
(`hashing.prompt_hash`) are computed from `model_name_of` and `model_params` of whatever
model the step holds, so a wrapper must report the wrapped model's name and parameters,
or turning the cache on would change every hash in the log and break replay.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from langchain_core.language_models import BaseChatModel
from pydantic import PrivateAttr

from agents.llm.hashing import GENERATION_PARAMS, model_name_of, model_params


def forward_generation_params(cls: type, source: Callable[[Any], dict[str, Any]]) -> None:
    """Give `cls` one read-only property per `GENERATION_PARAMS` name, read from `source(self)`.

    `hashing.model_params` reads those attributes, so a wrapper that forwards them hashes
    exactly like the model it stands for.
    """
    for name in GENERATION_PARAMS:
        setattr(cls, name, property(lambda self, _n=name: source(self).get(_n)))


class WrappedChatModel(BaseChatModel):
    """Base for wrappers: holds `inner` and hashes like it."""

    wrapper_kind: ClassVar[str] = "wrapped"
    inner: BaseChatModel
    _params: dict[str, Any] | None = PrivateAttr(default=None)

    @property
    def _llm_type(self) -> str:
        return f"crsim-{self.wrapper_kind}-{self.inner._llm_type}"

    @property
    def model_name(self) -> str:
        return model_name_of(self.inner)

    def inner_params(self) -> dict[str, Any]:
        """The inner model's generation params, read once (hashing asks for each, per call)."""
        if self._params is None:
            self._params = model_params(self.inner)
        return self._params


forward_generation_params(WrappedChatModel, WrappedChatModel.inner_params)

"""Customer agents (shopping protocol): the role's protocol here, implementations beside it."""

from typing import Protocol

from agents.base import Agent
from environments.shopping.views import CustomerMove, CustomerView


class Customer(Agent[CustomerView, CustomerMove], Protocol):
    """Shopper simulator (TRACER protocol): states its sampled preference, asks, accepts."""


__all__ = ["Customer"]

"""Seller agents (shopping protocol): the role's protocol here, implementations beside it."""

from typing import Protocol

from agents.base import Agent
from environments.shopping.views import SellerMove, SellerView


class Seller(Agent[SellerView, SellerMove], Protocol):
    """Shopping assistant (TRACER protocol, `environments.shopping`): asks planned aspects,
    explains, recommends one of the converged results, closes."""


__all__ = ["Seller"]

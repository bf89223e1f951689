"""Which users an episode simulates, and how each one's history splits into seen items,
held-out targets and the selected half of those."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from environments.errors import CrsimError
from environments.models import SeenItem

TARGET_RULES = ("random", "top_rated")


@dataclass(frozen=True, slots=True)
class UserSlot:
    """One simulated user: what it has seen, its targets, and the selected half of them."""

    user_id: str
    seen: tuple[SeenItem, ...]
    targets: tuple[SeenItem, ...]
    selected: tuple[str, ...]

    @property
    def target_ids(self) -> list[str]:
        return [t.item_id for t in self.targets]

    @property
    def residual(self) -> list[str]:
        return [t for t in self.target_ids if t not in self.selected]


def split_history(history: list[SeenItem], share: float, rule: str, rng: np.random.Generator,
                  selected_share: float = 0.5) -> tuple[list[SeenItem], list[SeenItem], list[str]]:
    """(seen, targets, selected target ids) of one user's history.

    `random` holds out a seeded `share` of the items (at least two, so both halves are
    non-empty; at least one stays seen); `top_rated` holds out the highest-rated ones,
    ties broken by the same generator. PEPPER gives no rule; random is the default
    because world ratings are integers and top-rated targets would be mostly 5-star ties.
    """
    if rule not in TARGET_RULES:
        raise CrsimError(f"environment.target_rule={rule!r}; expected one of {', '.join(TARGET_RULES)}")
    n = len(history)
    n_targets = min(n - 1, max(2, int(round(share * n))))
    order = rng.permutation(n)
    if rule == "top_rated":
        order = order[np.argsort([-(history[i].rating or 0.0) for i in order], kind="stable")]
    held = set(int(i) for i in order[:n_targets])
    targets = [history[i] for i in sorted(held)]
    seen = [history[i] for i in range(n) if i not in held]
    n_selected = min(len(targets) - 1, max(1, int(round(selected_share * len(targets)))))
    picked = sorted(int(i) for i in rng.permutation(len(targets))[:n_selected])
    return seen, targets, [targets[i].item_id for i in picked]

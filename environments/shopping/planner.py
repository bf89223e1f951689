"""Dialogue planning with a decision tree (TRACER §3.2, Algorithm 1), and a random baseline.

Each search step: take the products matching what the customer has revealed so far,
fit a `DecisionTreeClassifier` on their aspect values (dense one-hot "aspect=value"
columns; a product without an aspect has the empty value; the label is the product's
aspect-value signature, so products with equal features share a leaf and the tree stays
small — DESIGN.md §7), then walk the tree from the root with the customer's preference:
a node asking "aspect = w?" goes the way the preference decides (wanted value v: w == v;
unwanted v': not w when w == v'); where the preference does not decide (optional, an
aspect the product lacks, an unwanted value other than w) the walk follows the larger
child, where most remaining products are. The aspects met on the way, minus those
already revealed, are the next plan step. Steps repeat until every remaining product
satisfies the preference or nothing is left to ask; if the tree proposes nothing new
while products that violate the preference remain, the still-unrevealed wanted and
unwanted aspects are asked as a last step (marked `fallback`), so the final results
always satisfy the preference. Hints are the (up to) three most frequent values of an
aspect among the current results.

`planner: random` asks one unrevealed aspect at a time, drawn uniformly among the aspects
the current results have: the baseline for "does the tree need fewer turns?".
"""

from __future__ import annotations

import warnings
from collections import Counter
from collections.abc import Mapping

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from environments.errors import CrsimError
from environments.shopping.preference import Feature, Interest, Preference
from environments.shopping.products import ShoppingCatalog

HINTS = 3
ASPECTS_PER_TURN = 2  # the seller asks one or two aspects per utterance (paper, Table 16)
PLANNERS = ("tree", "random")


class PlannedAspect(BaseModel):
    """One aspect to discuss; the seller sees `aspect` and `hints`, never `value`/`interest`."""

    model_config = ConfigDict(extra="forbid")

    aspect: str = Field(description="Aspect key.")
    hints: list[str] = Field(default_factory=list, description="Up to 3 most frequent values among the results.")
    value: str = Field(default="", description="The customer's value (empty when optional).")
    interest: Interest = Field(description="The customer's interest in the aspect.")


class PlanStep(BaseModel):
    model_config = ConfigDict(extra="forbid")

    results_before: int = Field(description="Products matching the revealed preference before this step.")
    aspects: list[PlannedAspect] = Field(description="Aspects the step asks about, in tree order.")
    results_after: int = Field(default=0, description="Products left once the step's answers are searched.")
    fallback: bool = Field(default=False, description="Asked because the tree proposed nothing new.")


class Plan(BaseModel):
    """A whole planned search trajectory (single-pass generation and plan metrics)."""

    model_config = ConfigDict(extra="forbid")

    planner: str
    steps: list[PlanStep] = Field(default_factory=list)
    converged: bool = Field(description="Every final result satisfies the preference.")
    final_results: int = Field(description="Products left at the end.")

    @property
    def searches(self) -> int:
        """Search calls: the category search plus one per step."""
        return len(self.steps) + 1

    @property
    def aspects(self) -> int:
        return sum(len(step.aspects) for step in self.steps)

    @property
    def turns(self) -> int:
        """Seller questions needed when each asks at most two aspects of one step."""
        return sum(-(-len(step.aspects) // ASPECTS_PER_TURN) for step in self.steps)


def hints_for(shop: ShoppingCatalog, rows: np.ndarray, aspect: str) -> list[str]:
    counts = Counter(v for i in rows for v in shop.features[int(i)].get(aspect, ()))
    return [v for v, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:HINTS]]


def converged(shop: ShoppingCatalog, rows: np.ndarray, preference: Preference) -> bool:
    wanted, unwanted = preference.wanted, preference.unwanted
    return all(shop.satisfies(int(i), wanted, unwanted) for i in rows)


def _one_hot(shop: ShoppingCatalog, rows: np.ndarray) -> tuple[np.ndarray, list[tuple[str, str]], np.ndarray]:
    aspects = sorted({a for i in rows for a in shop.features[int(i)]})
    columns: dict[tuple[str, str], int] = {}
    cells: list[tuple[int, int]] = []
    signatures = []
    for r, i in enumerate(rows):
        have = shop.features[int(i)]
        for aspect in aspects:
            for value in have.get(aspect, ("",)):
                cells.append((r, columns.setdefault((aspect, value), len(columns))))
        signatures.append("&".join(f"{a}:{'|'.join(v)}" for a, v in sorted(have.items())))
    x = np.zeros((len(rows), len(columns)), dtype=np.float32)
    if cells:
        rr, cc = zip(*cells)
        x[list(rr), list(cc)] = 1.0
    _, y = np.unique(np.array(signatures), return_inverse=True)
    return x, list(columns), y


def _goes_right(feature: Feature, value: str) -> bool | None:
    """Whether a product the customer wants has `aspect == value` (None: the preference does not say)."""
    if feature.interest is Interest.wanted:
        return value == feature.value
    if feature.interest is Interest.unwanted and value == feature.value:
        return False
    return None


def tree_aspects(shop: ShoppingCatalog, rows: np.ndarray, preference: Preference, seed: int) -> list[str]:
    """Aspects on the tree path the preference takes, in root-to-leaf order."""
    from sklearn.tree import DecisionTreeClassifier

    x, columns, y = _one_hot(shop, rows)
    if len(np.unique(y)) < 2:
        return []
    with warnings.catch_warnings():  # one class per signature is the point, not a mistake
        warnings.filterwarnings("ignore", message="The number of unique classes", category=UserWarning)
        tree = DecisionTreeClassifier(random_state=seed).fit(x, y).tree_
    node, path = 0, []
    while tree.children_left[node] != tree.children_right[node]:  # not a leaf
        aspect, value = columns[int(tree.feature[node])]
        if aspect not in path:
            path.append(aspect)
        left, right = int(tree.children_left[node]), int(tree.children_right[node])
        decided = _goes_right(preference.feature(aspect), value)
        if decided is None:
            decided = tree.n_node_samples[right] > tree.n_node_samples[left]
        node = right if decided else left
    return path


def random_aspects(shop: ShoppingCatalog, rows: np.ndarray, revealed: Mapping[str, Feature],
                   rng: np.random.Generator) -> list[str]:
    present = sorted({a for i in rows for a in shop.features[int(i)]} - set(revealed))
    return [present[int(rng.integers(len(present)))]] if present else []


class Planner:
    """Plans search steps over one shopping catalog; `kind` is `tree` or `random`."""

    def __init__(self, shop: ShoppingCatalog, kind: str = "tree"):
        if kind not in PLANNERS:
            raise CrsimError(f"planner must be one of {', '.join(PLANNERS)}, got '{kind}'")
        self.shop = shop
        self.kind = kind

    def search(self, preference: Preference, revealed: Mapping[str, Feature]) -> np.ndarray:
        wanted = {a: f.value for a, f in revealed.items() if f.interest is Interest.wanted}
        unwanted = {a: f.value for a, f in revealed.items() if f.interest is Interest.unwanted}
        return self.shop.search(preference.category, wanted, unwanted)

    def next_step(self, rows: np.ndarray, preference: Preference, revealed: Mapping[str, Feature],
                  rng: np.random.Generator) -> PlanStep | None:
        """The next step, or None when the results have converged or nothing is left to ask."""
        if converged(self.shop, rows, preference):
            return None
        if self.kind == "tree":
            seed = int(rng.integers(2**31 - 1))
            aspects = [a for a in tree_aspects(self.shop, rows, preference, seed) if a not in revealed]
        else:
            aspects = random_aspects(self.shop, rows, revealed, rng)
        fallback = not aspects
        if fallback:
            aspects = [f.aspect for f in preference.features
                       if f.interest is not Interest.optional and f.aspect not in revealed]
            if not aspects:
                return None
        planned = [PlannedAspect(aspect=a, hints=hints_for(self.shop, rows, a), value=preference.feature(a).value,
                                 interest=preference.feature(a).interest) for a in aspects]
        return PlanStep(results_before=len(rows), aspects=planned, fallback=fallback)

    def full_plan(self, preference: Preference, rng: np.random.Generator) -> tuple[Plan, np.ndarray]:
        """Plan the whole trajectory at once, revealing every planned aspect (single-pass mode)."""
        revealed: dict[str, Feature] = {}
        rows = self.search(preference, revealed)
        steps = []
        while (step := self.next_step(rows, preference, revealed, rng)) is not None:
            for planned in step.aspects:
                revealed[planned.aspect] = preference.feature(planned.aspect)
            rows = self.search(preference, revealed)
            steps.append(step.model_copy(update={"results_after": len(rows)}))
        plan = Plan(planner=self.kind, steps=steps, converged=converged(self.shop, rows, preference),
                    final_results=len(rows))
        return plan, rows

"""How relevant catalog items are to a dialogue, by sentence embeddings: CRAG's offline judge.

CRAG asks a language model three judgements that need world knowledge about items:
which collaboratively retrieved items fit the conversation (context-aware reflection),
which items to recommend (generation) and how well each recommendation fits (reflect and
rerank). Offline, all three read the same two signals from the item embeddings the dense
index already holds (title, attributes, plot):

- *context relevance*: cosine between the dialogue (its most recent text, as one query)
  and each item;
- *affinity*: cosine between each item and the mean vector of the items the user spoke
  well of — what "movies like X" means to someone who knows the movies.

Both are turned into percentiles over the whole catalog, so thresholds do not depend on
the encoder's scale (MiniLM cosines bunch up between 0.1 and 0.5).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from environments.models import Turn

if TYPE_CHECKING:
    from environments.search.dense import DenseIndex

QUERY_CHARS = 1200  # MiniLM reads ~256 word pieces; the latest turns matter most


def dialogue_query(turns: Sequence[Turn], max_chars: int = QUERY_CHARS) -> str:
    """The dialogue's text, latest turns kept when it is too long for the encoder."""
    text = " ".join(t.text.strip() for t in turns if t.text.strip())
    return text[-max_chars:]


def percentiles(scores: np.ndarray) -> np.ndarray:
    """Each score's share of the catalog scoring strictly below it (0 … <1), ties equal."""
    order = np.sort(scores)
    return np.searchsorted(order, scores, side="left") / max(1, len(scores))


class DialogueRelevance:
    """Context relevance and affinity of every catalog item, from a `DenseIndex`."""

    def __init__(self, dense: DenseIndex, memo_size: int = 256):
        self.dense = dense
        self.memo_size = memo_size
        self._memo: dict[str, np.ndarray] = {}

    def context(self, turns: Sequence[Turn]) -> np.ndarray:
        """Cosine of the dialogue with every item (catalog order); zeros for an empty dialogue."""
        query = dialogue_query(turns)
        if not query:
            return np.zeros(len(self.dense), dtype=np.float32)
        cached = self._memo.get(query)
        if cached is None:
            if len(self._memo) >= self.memo_size:
                self._memo.clear()
            cached = self._memo[query] = self.dense.scores(query)
        return cached

    def affinity(self, anchors: Sequence[int]) -> np.ndarray:
        """Cosine of every item with the mean vector of the `anchors` (catalog positions)."""
        if not len(anchors):
            return np.zeros(len(self.dense), dtype=np.float32)
        centre = self.dense.matrix[np.asarray(sorted(set(anchors)), dtype=np.int64)].mean(axis=0)
        norm = float(np.linalg.norm(centre))
        return self.dense.scores_for_vector(centre / norm if norm > 0 else centre)

    def combined(self, turns: Sequence[Turn], anchors: Sequence[int]) -> np.ndarray:
        """Context relevance plus affinity to the liked items: the offline recommender's score."""
        return self.context(turns) + self.affinity(anchors) if len(anchors) else self.context(turns)

    def fit(self, turns: Sequence[Turn], anchors: Sequence[int]) -> np.ndarray:
        """Mean of the two percentiles (context only without anchors): how well items suit the dialogue."""
        context = percentiles(self.context(turns))
        if not len(anchors):
            return context
        return (context + percentiles(self.affinity(anchors))) / 2.0

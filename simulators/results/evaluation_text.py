"""One line of text per evaluation record, for transcripts in the terminal and the HTML report.

Both renderers show what the evaluator recorded after a move — a target's rank, how many
of several targets are near the top, the item set being built, items named — without
knowing the protocol: whatever a `TurnEvaluation` holds is described, nothing else.
"""

from __future__ import annotations

from collections.abc import Sequence

from environments.models import TurnEvaluation

TOP_K = 10


def describe_evaluation(record: TurnEvaluation, targets: Sequence[str]) -> str:
    """'target rank 3 / 3000', 'best target rank 2 / 800; 3 of 12 targets in the top 10',
    'set: 5 items (+2, -1), 3 of 19 targets', 'named: i1, i2' — joined by '; '."""
    parts = []
    if record.ranks:
        of = f" / {record.n_candidates}" if record.n_candidates else ""
        if len(record.ranks) == 1:
            parts.append(f"target rank {record.ranks[0].rank}{of}")
        else:
            near = sum(1 for r in record.ranks if r.rank <= TOP_K)
            parts.append(f"best target rank {record.best_rank}{of}; {near} of {len(targets) or len(record.ranks)} "
                         f"targets in the top {TOP_K}")
    if record.item_set is not None:
        state = record.item_set
        found = len(set(state.items) & set(targets))
        change = f" (+{len(state.added)}, -{len(state.removed)})" if state.added or state.removed else ""
        parts.append(f"set: {len(state.items)} items{change}, {found} of {len(targets)} targets")
    if record.mentions:
        parts.append("named: " + ", ".join(m.item_id for m in record.mentions))
    return "; ".join(parts)


def records_by_source(records: Sequence[TurnEvaluation]) -> dict[int, TurnEvaluation]:
    """Transcript index -> the record of the move at that index (a later record wins)."""
    return {r.source_turn: r for r in records if r.source_turn is not None}

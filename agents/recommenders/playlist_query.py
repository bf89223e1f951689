"""CPCD's query texts (§6.1/§6.2 of the paper), shared by the curators and `crsim eval cpcd`.

A playlist retriever at turn t has heard the user's utterances X_0 … X_t and seen which
tracks the user liked after each earlier one. Two query modes:
- `user`: the utterances, latest first (CPCD's BM25 baseline);
- `user+items`: X_t [SEP] d_{t-1} [SEP] X_{t-1} … d_0 [SEP] X_0, with d_s the text of the
  tracks liked after X_s (CPCD's dense baseline).
Segments are joined by " [SEP] " for a sentence encoder (MiniLM's tokenizer reads it as
its separator token) and by newlines for BM25, where "[SEP]" would be a word. Kept in
`agents` so the curators (`curator.py`) and the offline evaluation
(`simulators.offline.cpcd.queries`, which imports it) build the same text.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

QUERY_MODES = ("user", "user+items")
DENSE_SEPARATOR = " [SEP] "
LEXICAL_SEPARATOR = "\n"


def query_parts(utterances: Sequence[str], liked: Sequence[Sequence[str]], mode: str,
                track_text: Callable[[str], str]) -> list[str]:
    """The query's parts, latest first; `liked[s]` are the tracks liked after `utterances[s]`
    (only those of earlier utterances are used). Empty parts are dropped."""
    if mode not in QUERY_MODES:
        raise ValueError(f"unknown query mode {mode!r} (one of {', '.join(QUERY_MODES)})")
    if not utterances:
        return []
    last = len(utterances) - 1
    segments = [utterances[last]]
    for turn in range(last - 1, -1, -1):
        if mode == "user+items" and turn < len(liked) and liked[turn]:
            segments.append("; ".join(track_text(track) for track in liked[turn]))
        segments.append(utterances[turn])
    return [segment.strip() for segment in segments if segment.strip()]

"""The items a CRS names in its reply, for CRSs that answer in text alone.

Most deployed CRSs (KBRD, BARCOR, UniCRS behind iEvaLM-CRS's server, LLM-based ones)
return an utterance, not ids: the films they recommend are the titles in it. They are
found and linked with the entity linking CRAG's offline path uses
(`agents/steps/crag/entity_linking.py`: exact title forms, acronyms, typos; fuzzy and BM25
matches settled by the tie rule), in the order they appear.

A title the catalog does not hold is a recommendation nothing can score; it is reported,
not dropped in silence: a span that looks like a title ("Name (1999)", or a quoted name)
and that no linked mention covers is listed as `unlinked`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from agents.steps.crag.entity_linking import TextLinker
from environments.catalog import Catalog

# "Some Title (1999)": capitalised words (with the small words titles keep) before a year.
_SMALL = r"(?:of|the|a|an|and|in|on|to|for|at|by|with|from|vs\.?|&|-|:)"
_WORD = r"(?:[A-Z0-9][\w'’.!?-]*)"
TITLE_WITH_YEAR = re.compile(rf"({_WORD}(?:\s+(?:{_WORD}|{_SMALL}))*?)\s*\((\d{{4}})\)")
QUOTED = re.compile(r"[\"“]([^\"“”]{2,80})[\"”]")


@dataclass(frozen=True, slots=True)
class LinkedReply:
    """The catalog items a reply names (ids, first mention first) and the title-like names
    it contains that link to nothing."""

    items: list[str] = field(default_factory=list)
    unlinked: list[str] = field(default_factory=list)


class ReplyLinker:
    """Links the titles in a CRS's replies to one catalog (memoised per text by the linker)."""

    def __init__(self, catalog: Catalog):
        from environments.search.titles import title_index

        self.catalog = catalog
        self.linker = TextLinker(title_index(catalog))

    def link(self, text: str) -> LinkedReply:
        items: list[str] = []
        covered: list[tuple[int, int]] = []
        for mention in self.linker.find(text):
            position, _, _ = self.linker.link(mention.name)
            if position is None:
                continue
            covered.append((mention.start, mention.end))
            item_id = self.catalog.items[position].id
            if item_id not in items:
                items.append(item_id)
        unlinked = [name for name, start, end in title_like(text)
                    if not any(s < end and start < e for s, e in covered)]
        return LinkedReply(items, list(dict.fromkeys(unlinked)))


def title_like(text: str) -> list[tuple[str, int, int]]:
    """Spans that read as a title: "Name (YEAR)" and quoted names, as (name, start, end)."""
    spans = [(f"{m.group(1)} ({m.group(2)})", m.start(1), m.end()) for m in TITLE_WITH_YEAR.finditer(text)]
    spans += [(m.group(1).strip(), m.start(1), m.end(1)) for m in QUOTED.finditer(text)]
    return sorted(spans, key=lambda span: span[1])

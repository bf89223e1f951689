"""What a seeker's words say about the catalog: item names, and vocabulary only few items use.

*Names an item*: the turn's text holds one of a catalog item's title forms (the forms
`environments.search.titles` links names with: without the year, without a leading article,
the main title before a colon). Forms of one word count only when written with a capital
and not at the start of a sentence ("I watched Alien", not "Alien movies are..." nor "I'm
up for anything"), and forms made only of function words never count. The same detector
reads people's and simulators' turns, so their shares compare.

*Rare vocabulary* (the leak signal): a content word used by at least one and at most
`RARE_ITEMS` items' texts (description, attribute values, reviews; titles are left out,
naming an item is measured apart). A seeker that speaks its target's own review phrases
uses many; people hardly do. A catalog with no text but titles cannot say (None).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable

from environments.catalog import Catalog
from environments.search.titles import title_forms, title_tokens
from simulators.validity.language import FUNCTION_WORDS, content_words

RARE_ITEMS = 2
MAX_FORM_TOKENS = 12
_CAPITALISED = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][\w']*")


class TitleFinder:
    """The catalog items whose title forms occur in a text."""

    def __init__(self, catalog: Catalog):
        self.forms: dict[str, list[tuple[tuple[str, ...], str]]] = defaultdict(list)  # first token -> (form, id)
        for item in catalog.items:
            forms, _year = title_forms(item.title)
            for form in forms:
                parts = tuple(form.split())
                if not parts or len(parts) > MAX_FORM_TOKENS or all(p in FUNCTION_WORDS for p in parts):
                    continue
                if len(parts) == 1 and len(parts[0]) < 3:
                    continue
                self.forms[parts[0]].append((parts, item.id))

    def find(self, text: str) -> set[str]:
        """Leftmost-longest: at each place the longest title form that occurs there names
        the item(s), and the words it covers name nothing else. Otherwise "Police Academy 2"
        named "Police Academy" too, and "The Avengers" named "Avengers: Infinity War" (whose
        short form is "avengers"), and every early target name `target_named_early` counted
        for the offline and the LLM seekers on grounded ReDial was such a sibling's title."""
        found: set[str] = set()
        tokens = title_tokens(text)
        capitalised = {title_tokens(m.group(0))[0] for m in _CAPITALISED.finditer(text) if title_tokens(m.group(0))}
        start = 0
        while start < len(tokens):
            token = tokens[start]
            matches = [(parts, item_id) for parts, item_id in self.forms.get(token, ())
                       if tuple(tokens[start:start + len(parts)]) == parts
                       and (len(parts) > 1 or token in capitalised)]
            if not matches:
                start += 1
                continue
            longest = max(len(parts) for parts, _ in matches)
            found.update(item_id for parts, item_id in matches if len(parts) == longest)
            start += longest
        return found


def item_texts(catalog: Catalog) -> Iterable[str]:
    reviews = catalog.reviews_by_item
    for item in catalog.items:
        values = " ".join(" ".join(v) if isinstance(v, list) else str(v) for v in item.attributes.values())
        yield " ".join([item.description, values, *(r.text for r in reviews.get(item.id, []))])


def rare_vocabulary(catalog: Catalog, rare_items: int = RARE_ITEMS) -> frozenset[str] | None:
    """Content words that at least one and at most `rare_items` items' texts use (None: the
    items have no text but their titles)."""
    document_frequency: dict[str, int] = defaultdict(int)
    for text in item_texts(catalog):
        for word in set(content_words(text)):
            document_frequency[word] += 1
    if not document_frequency:
        return None
    return frozenset(w for w, n in document_frequency.items() if n <= rare_items)

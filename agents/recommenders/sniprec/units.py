"""What a catalog's reviews become in SnipRec's index: whole reviews, sentences or snippets.

The paper's three representations of user-generated content (its baselines and SnipRec
itself), each joined by the item's attributes written as snippets ("This restaurant has
rustic ambience."; for `document`, all of an item's attribute snippets make one document).

Item snippets come from `ItemSnippetStep` per review, cached on disk per review text under
`$CRSIM_CACHE_DIR/snippets/<implementation>.jsonl` (implementation = "offline-v2" or the
model's name): one JSON line per review, appended batch by batch, so an interrupted build
resumes where it stopped and a view of the catalog that withholds some reviews reuses the
others. Language-model extraction runs `batch` reviews concurrently (the backend's own
concurrency limit still applies); the calls are charged to the run's budget and recorded
like any other build-time call.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from agents.steps.base import capturing, note_step_inputs
from agents.steps.sniprec.snippets import ItemSnippetInput, ItemSnippets, ItemSnippetStep
from agents.steps.text import singular
from environments.catalog import Catalog
from environments.models import Review, Snippet
from environments.search.aspect_text import sentences
from environments.search.cache import cache_dir_for, content_key
from environments.search.snippets import Unit, attribute_snippets

OFFLINE_IMPLEMENTATION = "offline-v2"  # bump when the offline extractor changes what it writes
CAPTURED_REVIEWS = 200  # reviews handed to the step report (`capture_steps`) per extraction


def item_units(catalog: Catalog, unit: Unit, step: ItemSnippetStep, *, aspect_terms: Mapping[str, str],
               cache_dir: str | Path | None = None, batch: int = 16, progress: bool = True) -> list[Snippet]:
    """Every unit of the catalog (view) for the index, attribute snippets included."""
    noun = singular(catalog.item_noun)
    attributes = attribute_snippets(catalog, noun)
    if unit == "document":
        by_item: dict[str, list[str]] = {}
        for snippet in attributes:
            by_item.setdefault(snippet.item_id or "", []).append(snippet.text)
        return ([Snippet(text=" ".join(texts), item_id=item_id, source="attribute") for item_id, texts in by_item.items()]
                + [Snippet(text=r.text, item_id=r.item_id, source="review") for r in catalog.reviews if r.text.strip()])
    if unit == "sentence":
        return attributes + [Snippet(text=s, item_id=r.item_id, source="review")
                             for r in catalog.reviews for s in sentences(r.text)]
    titles = {item.id: item.title for item in catalog.items}
    extracted = SnippetCache(step, cache_dir).extract(catalog.reviews, noun, titles, aspect_terms,
                                                      batch=batch, progress=progress)
    return attributes + [Snippet(text=s.text, item_id=review.item_id, source="review", aspect=s.aspect,
                                 sentiment=s.sentiment, negated=s.negated)
                         for review, found in zip(catalog.reviews, extracted) for s in found.snippets]


class SnippetCache:
    """Item snippets per review text, kept in one append-only JSONL file per implementation."""

    def __init__(self, step: ItemSnippetStep, cache_dir: str | Path | None = None):
        self.step = step
        model = getattr(step.llm, "model_name", None) or getattr(step.llm, "model", None)
        implementation = OFFLINE_IMPLEMENTATION if step.llm is None else f"llm-{model or type(step.llm).__name__}"
        self.path = cache_dir_for("snippets", cache_dir) / f"{content_key(implementation, 'snippet_item')}.jsonl"

    def _load(self) -> dict[str, ItemSnippets]:
        found: dict[str, ItemSnippets] = {}
        if not self.path.exists():
            return found
        with open(self.path, encoding="utf-8") as handle:
            for line in handle:
                try:
                    record = json.loads(line)
                    found[record["key"]] = ItemSnippets.model_validate(record["snippets"])
                except (ValueError, KeyError):
                    continue  # a line cut by an interruption: that review is extracted again
        return found

    def extract(self, reviews: Sequence[Review], noun: str, titles: Mapping[str, str],
                aspect_terms: Mapping[str, str], *, batch: int = 16, progress: bool = True) -> list[ItemSnippets]:
        """Snippets of each review, in order: from the cache, or extracted and appended to it."""
        from tqdm.auto import tqdm

        from environments.search.embeddings import show_bar

        done = self._load()
        keys = [content_key(noun, r.text) for r in reviews]
        if capturing():  # the step report measures this step on the reviews it is given, cached or not
            for review in reviews[:CAPTURED_REVIEWS]:
                note_step_inputs(self.step, ItemSnippetInput(review.text, noun, titles.get(review.item_id, ""),
                                                             aspect_terms))
        todo = list(dict.fromkeys(key for key in keys if key not in done))
        text_of = {key: (r, titles.get(r.item_id, "")) for key, r in zip(keys, reviews)}
        with tqdm(total=len(todo), desc="Extracting snippets", unit="review",
                  disable=not show_bar(progress and len(todo) >= 200)) as bar:
            for start in range(0, len(todo), batch):
                chunk = todo[start:start + batch]
                inputs = [ItemSnippetInput(text_of[k][0].text, noun, text_of[k][1], aspect_terms) for k in chunk]
                outputs = self._run(inputs)
                self._append(zip(chunk, outputs))
                done.update(zip(chunk, outputs))
                bar.update(len(chunk))
        return [done[key] for key in keys]

    def _run(self, inputs: list[ItemSnippetInput]) -> list[ItemSnippets]:
        if self.step.llm is None:
            return [self.step.offline(i) for i in inputs]

        async def run_all() -> list[ItemSnippets]:
            from agents.llm.connections import release_connections

            try:
                return list(await asyncio.gather(*(self.step.run(i) for i in inputs)))
            finally:
                await release_connections(self.step.llm)  # this loop ends here; the run's loop is another

        return asyncio.run(run_all())

    def _append(self, pairs: Iterable[tuple[str, ItemSnippets]]) -> None:
        lines = "".join(json.dumps({"key": key, "snippets": out.model_dump()}) + "\n" for key, out in pairs)
        with open(self.path, "a", encoding="utf-8") as handle:
            handle.write(lines)


def aspect_terms_of(catalog: Catalog, mined: Any | None) -> dict[str, str]:
    """Surface term -> aspect: the catalog's attribute values and keys, and mined review aspects."""
    terms: dict[str, str] = {}
    for item in catalog.items:
        for key, value in item.attributes.items():
            for part in ([value] if isinstance(value, str) else value):
                terms.setdefault(str(part).lower().replace("_", " "), key)
            terms.setdefault(key.lower().replace("_", " "), key)
    if mined is not None:
        for term, aspect in mined.terms().items():
            terms.setdefault(term.lower(), aspect)
    return dict(sorted(terms.items(), key=lambda pair: -len(pair[0])))  # longest term first

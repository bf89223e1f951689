"""CRAG's language steps: extraction, link reflection, context reflection, generation, rerank.

Each is a `LanguageStep` (our own prompts in `agents/prompts/crag_*.md`, JSON answers)
with an offline implementation: entity linking by fuzzy/BM25 matching
(`entity_linking.py`), judgements by embedding relevance (`relevance.py`). The paper's
answers are lines like "name####attitude"; ours are JSON objects, parsed and repaired by
`run_structured` like every other step. Items travel by title in prompts and answers;
`accept` maps an answer back onto the items it was asked about (by normalised title),
and anything the model left out gets a stated default rather than vanishing silently.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, Field, create_model

from agents.steps.base import LanguageStep
from agents.steps.crag.entity_linking import LinkCandidates, TextLinker, tie_rule
from agents.steps.text import render_dialogue
from environments.datasets.normalize import title_year
from environments.models import Item, Turn
from environments.search.titles import title_tokens

Method = Literal["fuzzy", "bm25", "none"]


class _ByTitle:
    """Values from a model's answer, looked up by the title asked about: the exact title (year
    included) first, else the title without its year (models often drop it), case and
    punctuation ignored. Remakes sharing a name are told apart by the year when given."""

    def __init__(self, pairs: Sequence[tuple[str, object]]):
        pairs = [(t.split(DESCRIBED)[0], v) for t, v in pairs]  # a title copied with its description
        self.full = {" ".join(title_tokens(t)): v for t, v in pairs}
        self.base = {" ".join(title_tokens(title_year(t)[0])): v for t, v in pairs}

    def get(self, title: str, default: object) -> object:
        full = " ".join(title_tokens(title))
        if full in self.full:
            return self.full[full]
        return self.base.get(" ".join(title_tokens(title_year(title)[0])), default)


def _bullets(titles: Sequence[str]) -> str:
    return "\n".join(f"- {t}" for t in titles) or "(none)"


DESCRIBED = " — "  # between a title and its attributes in a list


def described(items: Sequence[Item], attributes: int = 4) -> str:
    """Items as a list with a few of their attributes ("- Northern Empire — genre: drama;
    era: 2000s"): a model can judge a film it knows by its title, not an invented one."""
    lines = []
    for item in items:
        shown = [f"{key.replace('_', ' ')}: {', '.join(map(str, value)) if isinstance(value, list) else value}"
                 for key, value in list(item.attributes.items())[:attributes]]
        lines.append(item.title + (DESCRIBED + "; ".join(shown) if shown else ""))
    return _bullets(lines)


# ------------------------------------------------------------------ extraction
class NamedMention(BaseModel):
    name: str = Field(description="The item's standard title (typos and abbreviations fixed).")
    attitude: int = Field(ge=-2, le=2, description="-2 very negative ... 0 neutral ... 2 very positive.")


class ExtractedMentions(BaseModel):
    mentions: list[NamedMention] = Field(default_factory=list, description="Every item named, in order.")


@dataclass(frozen=True, slots=True)
class ExtractInput:
    text: str
    speaker: str
    item_noun: str


class ExtractMentionsStep(LanguageStep[ExtractInput, ExtractedMentions]):
    """One call per utterance: every item it names, each with the speaker's attitude."""

    name = "crag_extract"
    prompt_name = "crag_extract"
    output_model = ExtractedMentions

    def __init__(self, linker: TextLinker, llm: object | None = None, role: str = "recommender"):
        super().__init__(llm, role)
        self.linker = linker

    def offline(self, inputs: ExtractInput) -> ExtractedMentions:
        return ExtractedMentions(mentions=[NamedMention(name=m.name, attitude=m.attitude)
                                           for m in self.linker.find(inputs.text)])

    def prompt_variables(self, inputs: ExtractInput) -> dict[str, object]:
        return {"item_noun": inputs.item_noun, "speaker": inputs.speaker, "text": inputs.text}


# ------------------------------------------------------------------ link reflection
class LinkDecision(BaseModel):
    name: str = Field(description="The extracted name, as given.")
    method: Method = Field(description="Which match is the item meant: fuzzy, bm25, or none of them.")


class LinkDecisions(BaseModel):
    decisions: list[LinkDecision] = Field(default_factory=list)


class TitleChoice(BaseModel):
    name: str = Field(description="The name, as given.")
    title: str = Field(description="The title it means, copied from its two options, or \"none\".")


class TitleChoices(BaseModel):
    """What the model answers: a title per name. Asked for the method's name instead, a small
    model answered by position (the first name fuzzy, the second bm25: 2 of 20 right)."""

    choices: list[TitleChoice] = Field(default_factory=list)


@dataclass(frozen=True, slots=True)
class ReflectLinksInput:
    text: str
    disagreements: Sequence[LinkCandidates]
    titles: Sequence[str]  # catalog titles by position
    item_noun: str


class ReflectLinksStep(LanguageStep[ReflectLinksInput, LinkDecisions]):
    """Settle the names whose fuzzy and BM25 matches differ, all in one call."""

    name = "crag_link_reflect"
    prompt_name = "crag_link_reflect"
    output_model = LinkDecisions
    llm_output_model = TitleChoices

    def __init__(self, linker: TextLinker, llm: object | None = None, role: str = "recommender"):
        super().__init__(llm, role)
        self.linker = linker

    def offline(self, inputs: ReflectLinksInput) -> LinkDecisions:
        decisions = []
        for found in inputs.disagreements:
            _, method = tie_rule(self.linker.index, found)
            decisions.append(LinkDecision(name=found.raw, method="none" if method == "both" else method))
        return LinkDecisions(decisions=decisions)

    @staticmethod
    def options(inputs: ReflectLinksInput, found: LinkCandidates) -> list[tuple[str, Method]]:
        """A name's two matches as (title, method), in title order: the order says nothing
        about the method, so a model that answers by position is not rewarded for it."""
        matches = [(inputs.titles[m.item], method) for m, method in ((found.fuzzy, "fuzzy"), (found.bm25, "bm25"))
                   if m is not None]
        return sorted(matches)

    def prompt_variables(self, inputs: ReflectLinksInput) -> dict[str, object]:
        lines = [f"- {f.raw}: " + " or ".join(f'"{title}"' for title, _ in self.options(inputs, f))
                 for f in inputs.disagreements]
        return {"item_noun": inputs.item_noun, "text": inputs.text, "candidates": "\n".join(lines)}

    def accept(self, output: TitleChoices, inputs: ReflectLinksInput) -> LinkDecisions:  # type: ignore[override]
        """One decision per disagreement, in order: the method whose match is the title chosen
        ("none" for a title that is neither); a name the model skipped gets the tie rule."""
        given = {c.name.strip().lower(): c.title for c in output.choices}
        fallback = {d.name: d for d in self.offline(inputs).decisions}
        decisions = []
        for found in inputs.disagreements:
            chosen = given.get(found.raw.strip().lower())
            if chosen is None:
                decisions.append(fallback[found.raw])
                continue
            method = next((m for title, m in self.options(inputs, found)
                           if title.strip().lower() == chosen.strip().lower()), "none")
            decisions.append(LinkDecision(name=found.raw, method=method))
        return LinkDecisions(decisions=decisions)


# ------------------------------------------------------------------ context reflection
class Judgement(BaseModel):
    title: str
    relevant: bool = Field(description="Whether it suits this conversation.")


class Judgements(BaseModel):
    judgements: list[Judgement] = Field(default_factory=list)


@dataclass(frozen=True, slots=True)
class ItemsInDialogue:
    """A dialogue and items to judge against it, with the offline judge's fit per item (0 … 1)."""

    dialogue: Sequence[Turn]
    items: Sequence[Item]
    fit: Sequence[float]
    item_noun: str
    threshold: float = 0.5


class ContextReflectStep(LanguageStep[ItemsInDialogue, Judgements]):
    """Keep only the collaboratively retrieved items that fit the conversation (0/1 each)."""

    name = "crag_context_reflect"
    prompt_name = "crag_context_reflect"
    output_model = Judgements

    def offline(self, inputs: ItemsInDialogue) -> Judgements:
        return Judgements(judgements=[Judgement(title=item.title, relevant=fit >= inputs.threshold)
                                      for item, fit in zip(inputs.items, inputs.fit)])

    def prompt_variables(self, inputs: ItemsInDialogue) -> dict[str, object]:
        return {"item_noun": inputs.item_noun, "dialogue": render_dialogue(inputs.dialogue),
                "items": described(inputs.items)}

    def accept(self, output: Judgements, inputs: ItemsInDialogue) -> Judgements:
        """One judgement per item, in order; an item the model did not judge is not kept."""
        given = _ByTitle([(j.title, j.relevant) for j in output.judgements])
        return Judgements(judgements=[Judgement(title=i.title, relevant=bool(given.get(i.title, False)))
                                      for i in inputs.items])


# ------------------------------------------------------------------ recommendation
class Titles(BaseModel):
    titles: list[str] = Field(default_factory=list, description="Titles, best first.")


@functools.lru_cache(maxsize=64)
def titles_up_to(count: int) -> type[Titles]:
    """`Titles` with at most `count` entries in its schema: asked for 20 titles, a 1.5B model
    repeated one until its token cap cut the answer off (12 of 20 calls unusable)."""
    return create_model("Titles", __base__=Titles, titles=(list[str], Field(
        default_factory=list, max_length=count, description="Titles, best first.")))


def distinct_titles(output: Titles) -> Titles:
    """Each title once, in order (a small model repeats titles)."""
    return Titles(titles=list(dict.fromkeys(t.strip() for t in output.titles if t.strip())))


@dataclass(frozen=True, slots=True)
class RecommendInput:
    """The dialogue, the retrieved items to show the model, and the offline list (titles)."""

    dialogue: Sequence[Turn]
    retrieved: Sequence[str]
    guidance: str  # "none" | "rag" | "rec" | "docs"
    count: int
    item_noun: str
    offline_titles: Sequence[str]


GUIDANCE = {
    "none": "",
    "rag": ("Going by the {item_noun} mentioned favourably above, people with similar taste also liked: "
            "{retrieved}. Use this as background only where it helps; your list need not come from it."),
    "rec": ("Going by the {item_noun} mentioned favourably above, people with similar taste also liked: "
            "{retrieved}. Treat these as candidates for your list."),
    "docs": "Catalog entries that may be related to this conversation: {retrieved}. Use them only where they help.",
}


class RecommendStep(LanguageStep[RecommendInput, Titles]):
    """M item titles for the conversation, optionally with retrieved items in the prompt."""

    name = "crag_recommend"
    prompt_name = "crag_recommend"
    output_model = Titles

    def offline(self, inputs: RecommendInput) -> Titles:
        return Titles(titles=list(inputs.offline_titles[: inputs.count]))

    def prompt_variables(self, inputs: RecommendInput) -> dict[str, object]:
        template = GUIDANCE[inputs.guidance] if inputs.retrieved else ""
        context = template.format(item_noun=inputs.item_noun, retrieved="; ".join(inputs.retrieved))
        return {"item_noun": inputs.item_noun, "dialogue": render_dialogue(inputs.dialogue),
                "count": inputs.count, "retrieved": context or "(nothing retrieved)"}

    def answer_model(self, inputs: RecommendInput) -> type[BaseModel]:
        return titles_up_to(inputs.count)

    def accept(self, output: Titles, inputs: RecommendInput) -> Titles:
        return distinct_titles(output)


class InferItemsStep(LanguageStep[RecommendInput, Titles]):
    """No item mentioned yet: name a few items this person would probably like (CRAG §3.4)."""

    name = "crag_infer"
    prompt_name = "crag_infer"
    output_model = Titles

    def offline(self, inputs: RecommendInput) -> Titles:
        return Titles(titles=list(inputs.offline_titles[: inputs.count]))

    def prompt_variables(self, inputs: RecommendInput) -> dict[str, object]:
        return {"item_noun": inputs.item_noun, "dialogue": render_dialogue(inputs.dialogue), "count": inputs.count}

    def answer_model(self, inputs: RecommendInput) -> type[BaseModel]:
        return titles_up_to(inputs.count)

    def accept(self, output: Titles, inputs: RecommendInput) -> Titles:
        return distinct_titles(output)


# ------------------------------------------------------------------ reflect and rerank
class Rating(BaseModel):
    title: str
    score: int = Field(ge=-2, le=2, description="-2 very bad ... 0 neutral ... 2 very good, for this conversation.")


class Ratings(BaseModel):
    ratings: list[Rating] = Field(default_factory=list)


def fit_to_score(fit: float) -> int:
    """Quintiles of the offline fit (0 … 1) as the five ordinal levels −2 … 2."""
    return max(-2, min(2, int(fit * 5) - 2))


class RerankStep(LanguageStep[ItemsInDialogue, Ratings]):
    """Score every recommendation −2 … 2 for this conversation (then re-sort, stable by rank)."""

    name = "crag_rerank"
    prompt_name = "crag_rerank"
    output_model = Ratings

    def offline(self, inputs: ItemsInDialogue) -> Ratings:
        return Ratings(ratings=[Rating(title=i.title, score=fit_to_score(f)) for i, f in zip(inputs.items, inputs.fit)])

    def prompt_variables(self, inputs: ItemsInDialogue) -> dict[str, object]:
        return {"item_noun": inputs.item_noun, "dialogue": render_dialogue(inputs.dialogue),
                "items": described(inputs.items)}

    def accept(self, output: Ratings, inputs: ItemsInDialogue) -> Ratings:
        """One rating per item, in order; an item the model did not rate counts as neutral (0)."""
        given = _ByTitle([(r.title, r.score) for r in output.ratings])
        return Ratings(ratings=[Rating(title=i.title, score=int(given.get(i.title, 0))) for i in inputs.items])


def rerank(item_ids: Sequence[str], ratings: Ratings) -> list[str]:
    """Items sorted by rating, best first; equal ratings keep their order (Python's sort is stable)."""
    scores = [r.score for r in ratings.ratings]
    order = sorted(range(len(item_ids)), key=lambda i: -scores[i])
    return [item_ids[i] for i in order]

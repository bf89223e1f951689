"""A target-free seeker's preferences (PEPPER §3.2): general, then reflected on what is shown.

1. **Binary preferences** per seen review: what the reviewer liked and disliked, as short
   phrases. Offline, a sentence that names an attribute value (`ValueLexicon`) counts as a
   like or a dislike of it by its VADER sentiment; neutral sentences say nothing.
2. **General preferences** of a user, from all their seen items: the representative likes
   and dislikes, weighted, and a first-person narrative. Offline, a feature's weight is
   the net number of reviews that liked it minus those that disliked it, plus half the
   rating deviation (stars minus the user's mean, halved) summed over the seen items whose
   card lists it; only features backed by at least `min_support` reviews or cards are kept
   (a single noisy sentence is not a taste). With a language model, the binary
   preferences of every seen item go into `pepper_general.md`.
3. **Reflected preferences** on the items shown in a turn, and the reply: `reflect.py`.

The representations are also scored on their own (`scripts/eval_pepper_pairwise.py`):
`raw_review_score`, `binary_score` and `weights_score` rank two items for one user.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from pydantic import BaseModel, Field

from agents.steps.base import LanguageStep
from agents.steps.seeker.summarize import tfidf_vectors
from agents.steps.seeker.value_lexicon import Feature, ValueLexicon, describe_feature
from agents.steps.text import fill_form, pick, sentiment, split_sentences
from environments.base import ItemCard

SENTIMENT_THRESHOLD = 0.05  # VADER's own neutral band
Reaction = Literal["like", "dislike", "unsure"]


def feature_key(feature: Feature) -> str:
    return describe_feature(feature)


def parse_features(phrases: Sequence[str], lexicon: ValueLexicon) -> list[Feature]:
    """Features named by preference phrases: "value (aspect)" as written offline, else any
    value the lexicon finds in the phrase (an LLM's free wording)."""
    known = set(lexicon.phrases.values())
    found: list[Feature] = []
    for phrase in phrases:
        head, _, tail = phrase.rpartition(" (")
        exact = (tail.rstrip(")").replace(" ", "_"), head) if head and tail.endswith(")") else None
        candidates = [exact] if exact in known else sorted(lexicon.features(phrase))
        found += [f for f in candidates if f is not None and f not in found]
    return found


# --- 1. binary preferences per review ------------------------------------------------------

class BinaryPreferences(BaseModel):
    likes: list[str] = Field(default_factory=list, description="What the reviewer liked, short phrases.")
    dislikes: list[str] = Field(default_factory=list, description="What the reviewer disliked, short phrases.")


class CappedPreferences(BaseModel):
    """What the model fills: at most six phrases a side. Uncapped, a 1.5B model repeated one
    phrase ("optimism", "optimism", ...) until its token cap cut the answer off (2 of 20)."""

    likes: list[str] = Field(default_factory=list, max_length=6, description="What the reviewer liked, short phrases.")
    dislikes: list[str] = Field(default_factory=list, max_length=6,
                                description="What the reviewer disliked, short phrases.")


@dataclass(frozen=True, slots=True)
class ReviewInput:
    card: ItemCard
    rating: float | None
    review: str
    item_noun: str


class ExtractPreferencesStep(LanguageStep[ReviewInput, BinaryPreferences]):
    name = "pepper_extract"
    prompt_name = "pepper_extract"
    output_model = BinaryPreferences
    llm_output_model = CappedPreferences

    def __init__(self, llm: object | None = None, role: str = "seeker", *, lexicon: ValueLexicon):
        super().__init__(llm, role)
        self.lexicon = lexicon

    def offline(self, inputs: ReviewInput) -> BinaryPreferences:
        return binary_preferences(inputs.review, self.lexicon, inputs.rating)

    def prompt_variables(self, inputs: ReviewInput) -> dict[str, object]:
        return {"item_noun": inputs.item_noun, "title": inputs.card.title,
                "rating": "unknown" if inputs.rating is None else f"{inputs.rating:g} of 5", "review": inputs.review}

    def accept(self, output: CappedPreferences, inputs: ReviewInput) -> BinaryPreferences:  # type: ignore[override]
        """Each phrase once (case and spacing aside), in order."""
        def distinct(phrases: list[str]) -> list[str]:
            first: dict[str, str] = {}
            for phrase in phrases:
                if phrase.strip():
                    first.setdefault(" ".join(phrase.lower().split()), phrase.strip())
            return list(first.values())

        return BinaryPreferences(likes=distinct(output.likes), dislikes=distinct(output.dislikes))


def binary_preferences(review: str, lexicon: ValueLexicon, rating: float | None = None) -> BinaryPreferences:
    """Likes and dislikes of one review: the values a sentence names, by the sentence's
    VADER sentiment with the value phrases masked (a phrase such as "gorgeous visuals"
    carries its own sentiment, which says nothing about the reviewer's attitude); a neutral
    sentence takes the review's stars (4-5 like, 1-2 dislike, 3 nothing)."""
    fallback = 0 if rating is None else 1 if rating >= 4 else -1 if rating <= 2 else 0
    likes: list[str] = []
    dislikes: list[str] = []
    for sentence in split_sentences(review):
        mentions = lexicon.mentions(sentence)
        if not mentions:
            continue
        hidden = list(sentence)
        for m in mentions:
            hidden[m.start:m.end] = " " * (m.end - m.start)
        score = sentiment("".join(hidden))
        sign = 1 if score >= SENTIMENT_THRESHOLD else -1 if score <= -SENTIMENT_THRESHOLD else fallback
        side = likes if sign > 0 else dislikes if sign < 0 else None
        if side is not None:
            side += [key for key in map(feature_key, sorted({m.feature for m in mentions})) if key not in side]
    both = set(likes) & set(dislikes)
    return BinaryPreferences(likes=[k for k in likes if k not in both], dislikes=[k for k in dislikes if k not in both])


# --- 2. general preferences of a user ------------------------------------------------------

class GeneralPreferences(BaseModel):
    narrative: str = Field(description="The user's taste in the first person, a few sentences.")
    likes: list[str] = Field(default_factory=list, description="What the user likes, strongest first.")
    dislikes: list[str] = Field(default_factory=list, description="What the user dislikes, strongest first.")
    weights: dict[str, float] = Field(default_factory=dict,
                                      description="Feature -> strength in [-1, 1] (filled in by crsim).")


class GeneralAnswer(BaseModel):
    """What the model fills: no `weights` (crsim derives them), a capped narrative and capped
    lists, which a grammar-constrained model cannot run past. Uncapped, a 1.5B model looped
    ("They also dislike 2000s era films ...") into its token cap in 13 of 20 calls; the
    narrative has no description in the schema because the model copied it as the answer."""

    narrative: str = Field(max_length=320)
    likes: list[str] = Field(default_factory=list, max_length=8, description="What the user likes, strongest first.")
    dislikes: list[str] = Field(default_factory=list, max_length=5,
                                description="What the user dislikes, strongest first.")


@dataclass(frozen=True, slots=True)
class SeenEvidence:
    """One seen item as the general-preference step reads it."""

    card: ItemCard
    rating: float | None
    preferences: BinaryPreferences


@dataclass(frozen=True, slots=True)
class GeneralInput:
    seen: Sequence[SeenEvidence]
    item_noun: str


NARRATIVE_LIKES = ("I'm really into {x}.", "I tend to love {x}.", "What I go for is {x}.")
NARRATIVE_DISLIKES = ("I can't stand {x}.", "I usually steer clear of {x}.", "{X} is a turn-off for me.")


class GeneralPreferencesStep(LanguageStep[GeneralInput, GeneralPreferences]):
    name = "pepper_general"
    prompt_name = "pepper_general"
    output_model = GeneralPreferences
    llm_output_model = GeneralAnswer

    def __init__(self, llm: object | None = None, role: str = "seeker", *, lexicon: ValueLexicon,
                 min_support: int = 2, card_weight: float = 0.5, max_likes: int = 8, max_dislikes: int = 5):
        super().__init__(llm, role)
        self.lexicon = lexicon
        self.min_support = min_support
        self.card_weight = card_weight
        self.max_likes = max_likes
        self.max_dislikes = max_dislikes

    def offline(self, inputs: GeneralInput) -> GeneralPreferences:
        weights = general_weights(inputs.seen, self.lexicon, min_support=self.min_support,
                                  card_weight=self.card_weight)
        return preferences_from_weights(weights, self.max_likes, self.max_dislikes)

    def prompt_variables(self, inputs: GeneralInput) -> dict[str, object]:
        lines = []
        for seen in inputs.seen:
            rating = "unrated" if seen.rating is None else f"{seen.rating:g}/5"
            lines.append(f"- {seen.card.title} ({rating}): likes: {', '.join(seen.preferences.likes) or 'none'}; "
                         f"dislikes: {', '.join(seen.preferences.dislikes) or 'none'}")
        return {"item_noun": inputs.item_noun, "seen": "\n".join(lines)}

    def accept(self, output: GeneralAnswer, inputs: GeneralInput) -> GeneralPreferences:  # type: ignore[override]
        """An LLM's likes/dislikes become weights by rank (strongest first)."""
        weights: dict[str, float] = {}
        for sign, phrases in ((1.0, output.likes), (-1.0, output.dislikes)):
            features = parse_features(phrases, self.lexicon)
            for rank, feature in enumerate(features):
                weights.setdefault(feature_key(feature), sign * (1.0 - 0.5 * rank / max(1, len(features))))
        return GeneralPreferences(**output.model_dump(), weights=weights)


def general_weights(seen: Sequence[SeenEvidence], lexicon: ValueLexicon, *, min_support: int = 2,
                    card_weight: float = 0.5) -> dict[Feature, float]:
    """Net review evidence plus rating deviation on listed features, for supported features,
    scaled so the strongest is +-1."""
    ratings = [s.rating for s in seen if s.rating is not None]
    mean = float(np.mean(ratings)) if ratings else 3.0
    score: dict[Feature, float] = defaultdict(float)
    support: dict[Feature, int] = defaultdict(int)
    for item in seen:
        for sign, phrases in ((1.0, item.preferences.likes), (-1.0, item.preferences.dislikes)):
            for feature in parse_features(phrases, lexicon):
                score[feature] += sign
                support[feature] += 1
        if item.rating is not None:
            for feature in lexicon.card_features(item.card):
                score[feature] += card_weight * (item.rating - mean) / 2.0
                support[feature] += 1
    kept = {f: s for f, s in score.items() if support[f] >= min_support and s != 0.0}
    top = max((abs(s) for s in kept.values()), default=1.0)
    return {f: s / top for f, s in kept.items()}


def preferences_from_weights(weights: Mapping[Feature, float], max_likes: int = 8,
                             max_dislikes: int = 5) -> GeneralPreferences:
    """Likes and dislikes, strongest first, and a narrative in the user's voice."""
    ranked = sorted(weights.items(), key=lambda fw: (-abs(fw[1]), fw[0]))
    likes = [f for f, w in ranked if w > 0][:max_likes]
    dislikes = [f for f, w in ranked if w < 0][:max_dislikes]
    parts = []
    if likes:
        parts.append(_frame(pick(NARRATIVE_LIKES, *likes[0]), and_joined([f[1] for f in likes[:4]])))
    if dislikes:
        parts.append(_frame(pick(NARRATIVE_DISLIKES, *dislikes[0]), and_joined([f[1] for f in dislikes[:3]])))
    return GeneralPreferences(
        narrative=" ".join(parts) or "I don't have strong tastes; I'm open to suggestions.",
        likes=[feature_key(f) for f in likes], dislikes=[feature_key(f) for f in dislikes],
        weights={feature_key(f): round(w, 6) for f, w in weights.items()})


def _frame(form: str, filler: str) -> str:
    return fill_form(form, x=filler)


def and_joined(words: Sequence[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def weights_of(preferences: GeneralPreferences, lexicon: ValueLexicon) -> dict[Feature, float]:
    out: dict[Feature, float] = {}
    for key, weight in preferences.weights.items():
        for feature in parse_features([key], lexicon)[:1]:
            out[feature] = weight
    return out


# --- scoring an item for one user, by each representation ---------------------------------

def weights_score(weights: Mapping[Feature, float], features: set[Feature]) -> float:
    return float(sum(weights.get(f, 0.0) for f in features))


def binary_score(reviews: Sequence[BinaryPreferences], features: set[Feature], lexicon: ValueLexicon) -> float:
    """Binary preferences as they are: every review votes +1 per liked feature the item has
    and -1 per disliked one (no rating evidence, no filtering, no weighting)."""
    return float(sum(len(set(parse_features(r.likes, lexicon)) & features)
                     - len(set(parse_features(r.dislikes, lexicon)) & features) for r in reviews))


def raw_review_score(reviews: Sequence[tuple[str, float]], card_text: str) -> float:
    """Raw reviews unprocessed: TF-IDF similarity of the card to each review, weighted by the
    review's rating deviation (a reader matching words, with no notion of what was liked)."""
    if not reviews:
        return 0.0
    vectors = tfidf_vectors([card_text] + [text for text, _ in reviews])
    mean = float(np.mean([rating for _, rating in reviews]))
    return float(sum((rating - mean) * float(vectors[0] @ vectors[i + 1]) for i, (_, rating) in enumerate(reviews)))


def reaction_bars(weights: Mapping[Feature, float], seen: Sequence[ItemCard], lexicon: ValueLexicon,
                  share: float = 0.25) -> tuple[float, float]:
    """Scores at which a shown item is liked and disliked: the top and bottom `share` of the
    user's own seen items. Tastes are relative (how good must a film look compared with
    what this user usually watches), and a fixed bar would like nearly everything a
    content recommender shows. Liking needs a positive score whatever the quantile."""
    scores = [weights_score(weights, lexicon.card_features(card)) for card in seen]
    if not scores:
        return 0.3, -0.3
    return max(float(np.quantile(scores, 1.0 - share)), 1e-6), float(np.quantile(scores, share))


def card_text(card: ItemCard) -> str:
    listed = "; ".join(f"{a}: {v}" for a, v in card.attributes.items())
    return f"{card.title}. {card.description} {listed}"

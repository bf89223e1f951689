"""Every validity figure of one set of seeker dialogues, each with a bootstrap 95% CI.

Turns of one dialogue are not independent (one person, one simulator episode), so the
intervals resample dialogues: a figure is a ratio of per-dialogue sums (e.g. turns that
ask / turns), recomputed on each resample. Distinct-n is the exception: it depends on
sample size, so it is computed on equal-size samples of turns (`sample_turns`, the same
for every set compared) drawn repeatedly, and its interval is the spread of those draws.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from simulators.results.stats import cluster_bootstrap, percentile_interval
from simulators.validity import language
from simulators.validity.items import TitleFinder
from simulators.validity.turns import SeekerDialogue, SeekerTurn

N_RESAMPLES = 1000
DISTINCT_DRAWS = 50
TOP = 10


@dataclass(frozen=True, slots=True)
class Figure:
    name: str
    value: float
    low: float
    high: float
    n: int  # what the figure averages over (turns, dialogues, sentences, words)


@dataclass(frozen=True, slots=True)
class FigureSpec:
    name: str
    unit: str
    meaning: str


SPECS = [
    FigureSpec("words_per_turn", "turns", "whitespace words per seeker turn"),
    FigureSpec("turns_per_dialogue", "dialogues", "seeker turns with text per dialogue"),
    FigureSpec("question_share", "turns", "share of seeker turns that ask something (contain '?')"),
    FigureSpec("item_name_share", "turns", "share of seeker turns that name a catalog item"),
    FigureSpec("preference_share", "turns", "share of seeker turns that state a like or dislike"),
    FigureSpec("reaction_share", "turns", "share of seeker turns that like/dislike a shown item or accept one"),
    FigureSpec("position_reference_share", "turns", "share of seeker turns that point at a shown item by its "
               "place on screen ('the first one', 'number 2')"),
    FigureSpec("cooperativeness", "turns", "share of answers to a recommender question that state a preference"),
    FigureSpec("distinct_1", "draws", "distinct words / words, on equal-size samples of turns"),
    FigureSpec("distinct_2", "draws", "distinct word pairs / word pairs, on equal-size samples of turns"),
    FigureSpec("template_rate", "sentences", "share of sentences whose skeleton is in > 5% of all sentences"),
    FigureSpec("verbatim_overlap", "sentences", "share of sentences over 4 words said word for word in the people's "
               "conversations (a person's: said by another person)"),
    FigureSpec("rare_vocabulary_share", "words", "share of content words used by at most 2 items' texts (leak)"),
    FigureSpec("target_named_early", "dialogues", "share of dialogues whose seeker names a target before it is shown"),
    FigureSpec("target_top10_turn1", "dialogues", "share of episodes with a target in the top 10 after turn 1"),
]
NAMES = [spec.name for spec in SPECS]


def ratio_ci(numerators: Sequence[float], denominators: Sequence[float], *, seed: int = 0,
             n_resamples: int = N_RESAMPLES) -> tuple[float, float, float, int]:
    """(sum num / sum den, low, high, sum den) with dialogues resampled (NaN where a resample's
    dialogues have no denominator)."""
    num, den = np.asarray(numerators, dtype=float), np.asarray(denominators, dtype=float)
    total = float(den.sum())
    if total == 0:
        nan = float("nan")
        return nan, nan, nan, 0
    value = float(num.sum() / total)

    def ratios(index: np.ndarray) -> np.ndarray:
        sums = den[index].sum(axis=1)
        return np.where(sums > 0, num[index].sum(axis=1) / np.maximum(sums, 1e-12), np.nan)

    draws = cluster_bootstrap(ratios, len(num), n_resamples=n_resamples, seed=seed, vectorized=True)
    low, high = percentile_interval(draws, point=value)
    return value, low, high, int(total)


def per_dialogue(dialogues: Sequence[SeekerDialogue], count: Callable[[SeekerTurn], float],
                 over: Callable[[SeekerTurn], float] = lambda _t: 1.0) -> tuple[list[float], list[float]]:
    return ([sum(count(t) for t in d.turns) for d in dialogues], [sum(over(t) for t in d.turns) for d in dialogues])


def verbatim_overlap(dialogues: Sequence[SeekerDialogue], people: Sequence[SeekerDialogue], *,
                     own_excluded: bool, seed: int = 0) -> Figure:
    """The share of `dialogues`' sentences over four words that the `people` said word for word.

    Why: a simulator that speaks in people's wordings could be reciting the very conversations
    it is compared with. People repeat stock sentences too ("thank you for your help"), so the
    people's own figure (`own_excluded`: a sentence counts when *another* person said it;
    ReDial's workers each held many conversations and thanked the same way in all) is the
    level a bank built from other people reaches; well above it means a leak.
    """
    said_by: dict[str, set[str]] = {}
    for dialogue in people:
        for turn in dialogue.turns:
            for key in language.long_sentences(turn.text):
                said_by.setdefault(key, set()).add(dialogue.person or dialogue.id)
    num, den = [], []
    for dialogue in dialogues:
        keys = [k for t in dialogue.turns for k in language.long_sentences(t.text)]
        own = {dialogue.person or dialogue.id} if own_excluded else set()
        num.append(float(sum(bool(said_by.get(k, set()) - own) for k in keys)))
        den.append(float(len(keys)))
    value, low, high, n = ratio_ci(num, den, seed=seed)
    return Figure("verbatim_overlap", value, low, high, n)


def compute_figures(dialogues: Sequence[SeekerDialogue], *, finder: TitleFinder | None = None,
                    rare: frozenset[str] | None = None, templates: set[tuple[str, ...]] | None = None,
                    sample_turns: int | None = None, seed: int = 0) -> dict[str, Figure]:
    """Every figure of `dialogues` (NaN where its input is missing: no catalog, no targets).

    `templates` fixes which skeletons count as templates (default: this set's own frequent
    ones); `sample_turns` the size of the distinct-n samples (default: every turn).
    """
    out: dict[str, Figure] = {}

    def put(name: str, num: Sequence[float], den: Sequence[float]) -> None:
        value, low, high, n = ratio_ci(num, den, seed=seed)
        out[name] = Figure(name, value, low, high, n)

    put("words_per_turn", *per_dialogue(dialogues, lambda t: len(language.words(t.text))))
    put("turns_per_dialogue", [len(d.turns) for d in dialogues], [1.0] * len(dialogues))
    put("question_share", *per_dialogue(dialogues, lambda t: language.asks(t.text)))
    put("preference_share", *per_dialogue(dialogues, lambda t: language.states_preference(t.text)))
    put("reaction_share", *per_dialogue(dialogues, lambda t: t.reacted))
    put("position_reference_share", *per_dialogue(dialogues, lambda t: language.points_by_position(t.text)))
    put("cooperativeness", *per_dialogue(dialogues, lambda t: t.after_question and language.states_preference(t.text),
                                         lambda t: t.after_question))
    if finder is not None:
        put("item_name_share", *per_dialogue(dialogues, lambda t: bool(finder.find(t.text))))
        with_targets = [d for d in dialogues if d.targets]
        put("target_named_early", [float(_names_target_early(d, finder)) for d in with_targets],
            [1.0] * len(with_targets))
    if rare is not None:
        put("rare_vocabulary_share", *per_dialogue(
            dialogues, lambda t: sum(w in rare for w in language.content_words(t.text)),
            lambda t: len(language.content_words(t.text))))
    ranked = [d for d in dialogues if d.first_ranks]
    put("target_top10_turn1", [float(min(d.first_ranks) <= TOP) for d in ranked], [1.0] * len(ranked))
    found = language.skeletons(t.text for d in dialogues for t in d.turns)
    frequent = templates if templates is not None else language.frequent_skeletons(found)
    put("template_rate", *_template_counts(dialogues, frequent))
    texts = [t.text for d in dialogues for t in d.turns]
    for n in (1, 2):
        out[f"distinct_{n}"] = _distinct(texts, n, sample_turns or len(texts), seed)
    return {name: out[name] for name in NAMES if name in out}


def _names_target_early(dialogue: SeekerDialogue, finder: TitleFinder) -> bool:
    targets = set(dialogue.targets)
    return any((finder.find(t.text) & targets) - t.shown_before for t in dialogue.turns)


def _template_counts(dialogues: Sequence[SeekerDialogue],
                     templates: set[tuple[str, ...]]) -> tuple[list[float], list[float]]:
    num, den = [], []
    for dialogue in dialogues:
        found = language.skeletons(t.text for t in dialogue.turns)
        num.append(float(sum(s in templates for s in found)))
        den.append(float(len(found)))
    return num, den


def _distinct(texts: Sequence[str], n: int, size: int, seed: int) -> Figure:
    name = f"distinct_{n}"
    if not texts:
        return Figure(name, float("nan"), float("nan"), float("nan"), 0)
    size = min(size, len(texts))

    def distinct(index: np.ndarray) -> float:
        return language.distinct_n([texts[i] for i in index], n)

    draws = cluster_bootstrap(distinct, len(texts), n_resamples=DISTINCT_DRAWS, seed=seed, sample_size=size,
                              replace=False)
    value = float(draws.mean())  # NaN when a sample has no n-gram, and so is the interval
    low, high = percentile_interval(draws, point=value, undefined="propagate")
    return Figure(name, value, low, high, size)

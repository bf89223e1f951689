"""How far a person's like or dislike of a shown item can be told from what was said before it.

`crsim validate reactions` measures a simulated seeker's decisions against people's with
Cohen's κ. Before reading that κ as the simulator's fault, one needs to know what any seeker
could reach: a seeker knows only what the person had said and been told so far. This module
fits a plain text classifier (TF-IDF of words and word pairs, class-balanced logistic
regression, scikit-learn) on a *training* split's reactions and reports its κ on the compared
conversations, twice:

- **before**: from everything said up to and including the recommender turn that first showed
  the item (the same knowledge a grounded seeker may have, and more: the whole history);
- **reply**: from what the person said in their next turn, the words in which people usually
  give their verdict.

If `before` stays near 0 while `reply` does not, the person's verdict is in their reply and
not predictable from the conversation before it: a κ target for a simulator then asks for
information no seeker has. The classifier is fitted once per run on training conversations only
and never sees the compared ones' labels.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from environments.models import Episode, Role
from simulators.validity.reactions import LABELS, Interval, Reaction, kappa_interval, real_reactions

REPLY_TURNS = 1  # the very next turn: tried 1, 2 and 3 on ReDial's tune_data, it carries the verdict best
KINDS = ("before", "reply")


@dataclass(frozen=True, slots=True)
class ShownReaction:
    conversation: str
    item: str
    label: str  # like / dislike, the person's
    target: bool
    before: str  # the conversation up to and including the recommender turn that first showed the item
    reply: str  # the person's next REPLY_TURNS turn(s)


def shown_reactions(episode: Episode) -> list[ShownReaction]:
    """The person's reactions to items a recommender turn showed, with the texts around them."""
    reactions = real_reactions(episode)
    out: list[ShownReaction] = []
    done: set[str] = set()
    for index, turn in enumerate(episode.turns):
        if turn.role != Role.recommender:
            continue
        for item in turn.items_shown:
            if item in done or item not in reactions:
                continue
            done.add(item)
            before = " ".join(f"{'S' if t.role == Role.seeker else 'R'}: {t.text}" for t in episode.turns[:index + 1])
            reply = [t.text for t in episode.turns[index + 1:] if t.role == Role.seeker and t.text.strip()]
            out.append(ShownReaction(episode.id, item, reactions[item], item in episode.targets, before,
                                     " ".join(reply[:REPLY_TURNS])))
    return out


@dataclass(frozen=True, slots=True)
class Predictability:
    kind: str  # before / reply
    kappa: Interval
    kappa_without_targets: Interval
    trained_on: int  # training reactions
    pairs: int
    conversations: int
    predicted_dislike: float


def predictability(train: Sequence[Episode], compared: Sequence[Episode], *, seed: int = 0,
                   n_resamples: int = 300) -> list[Predictability]:
    """κ of a text classifier fitted on `train`'s reactions, on `compared`'s (empty when either
    side has no reaction or the training side has only one label)."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    fit_rows = [r for e in train for r in shown_reactions(e)]
    test_rows = [r for e in compared for r in shown_reactions(e)]
    if not test_rows or len({r.label for r in fit_rows}) < 2:
        return []
    out = []
    for kind in KINDS:
        model = make_pipeline(TfidfVectorizer(ngram_range=(1, 2), min_df=2, sublinear_tf=True),
                              LogisticRegression(class_weight="balanced", max_iter=2000, random_state=seed))
        model.fit([getattr(r, kind) for r in fit_rows], [r.label for r in fit_rows])
        predicted = model.predict([getattr(r, kind) for r in test_rows])
        pairs = [Reaction(r.conversation, r.item, r.label, str(p), r.target) for r, p in zip(test_rows, predicted)]
        kappa = kappa_interval(pairs, lambda p: (p.real, p.simulated), LABELS, seed=seed, n_resamples=n_resamples)
        others = kappa_interval([p for p in pairs if not p.target], lambda p: (p.real, p.simulated), LABELS,
                                seed=seed, n_resamples=n_resamples)
        out.append(Predictability(kind, kappa, others, len(fit_rows), len(pairs),
                                  len({p.conversation for p in pairs}),
                                  sum(p.simulated == "dislike" for p in pairs) / len(pairs)))
    return out

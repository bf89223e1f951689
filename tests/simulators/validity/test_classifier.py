"""The real-vs-simulated classifier: ~0.5 on two halves of one corpus, ~1.0 against a constant."""

import numpy as np

from crsim_testing import HashEncoder
from simulators.validity.classifier import LabelledTurn, distinguishability

WORDS = ("movie comedy horror scary funny old new great loved hated watch seen actor plot ending kids "
         "night weekend classic action drama romance thriller sequel book series").split()
STARTS = ("I like", "Have you seen", "Maybe something", "I never watched", "What about", "My kids loved", "Not")


def people(n_dialogues: int, seed: int) -> list[LabelledTurn]:
    rng = np.random.default_rng(seed)
    turns = []
    for d in range(n_dialogues):
        for _ in range(rng.integers(3, 8)):
            body = " ".join(rng.choice(WORDS, size=rng.integers(2, 9)))
            end = "?" if rng.random() < 0.2 else "."
            turns.append(LabelledTurn(f"{rng.choice(STARTS)} {body}{end}", f"d{seed}-{d}"))
    return turns


def test_two_halves_of_one_corpus_cannot_be_told_apart():
    corpus = people(160, seed=1)
    groups = sorted({t.group for t in corpus})
    first = set(groups[::2])
    half_a = [t for t in corpus if t.group in first]
    half_b = [t for t in corpus if t.group not in first]
    figure = distinguishability(half_a, half_b, HashEncoder(), seed=0)
    assert 0.4 < figure.value < 0.6 and figure.low < 0.5 < figure.high, figure


def test_a_constant_string_is_told_apart_at_once():
    corpus = people(80, seed=2)
    constant = [LabelledTurn("Quiet atmosphere is a big thing for me.", f"s{i // 5}") for i in range(len(corpus))]
    figure = distinguishability(corpus, constant, HashEncoder(), seed=0)
    assert figure.value > 0.99 and figure.n == 2 * min(len(corpus), 1000)

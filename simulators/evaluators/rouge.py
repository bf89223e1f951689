"""ROUGE-1, ROUGE-2 and ROUGE-L F-measures (Lin, 2004), written out rather than a dependency.

Tokens are lower-cased alphanumeric runs (`$` and `.` inside numbers kept), no stemming:
CQG compares short linearised queries whose words come from the catalog, so stemming
would only blur exact value matches. Scores are F1 of n-gram overlap (clipped counts)
and of the longest common subsequence.
"""

from __future__ import annotations

import re
from collections import Counter

_TOKEN = re.compile(r"[a-z0-9$]+(?:\.[0-9]+)?")


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


def _f1(overlap: float, predicted: int, reference: int) -> float:
    if overlap == 0 or predicted == 0 or reference == 0:
        return 0.0
    precision, recall = overlap / predicted, overlap / reference
    return 2 * precision * recall / (precision + recall)


def rouge_n(prediction: str, reference: str, n: int) -> float:
    p, r = tokens(prediction), tokens(reference)
    grams_p = Counter(tuple(p[i:i + n]) for i in range(len(p) - n + 1))
    grams_r = Counter(tuple(r[i:i + n]) for i in range(len(r) - n + 1))
    return _f1(sum((grams_p & grams_r).values()), sum(grams_p.values()), sum(grams_r.values()))


def lcs_length(a: list[str], b: list[str]) -> int:
    if not a or not b:
        return 0
    previous = [0] * (len(b) + 1)
    for x in a:
        current = [0]
        for j, y in enumerate(b):
            current.append(previous[j] + 1 if x == y else max(previous[j + 1], current[j]))
        previous = current
    return previous[-1]


def rouge_l(prediction: str, reference: str) -> float:
    p, r = tokens(prediction), tokens(reference)
    return _f1(lcs_length(p, r), len(p), len(r))


def rouge_scores(prediction: str, reference: str) -> dict[str, float]:
    return {"rouge1": rouge_n(prediction, reference, 1), "rouge2": rouge_n(prediction, reference, 2),
            "rougeL": rouge_l(prediction, reference)}

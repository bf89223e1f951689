import pytest

from simulators.evaluators.rouge import lcs_length, rouge_l, rouge_n, rouge_scores, tokens


def test_tokens_keep_prices_and_decimals():
    assert tokens("Between $20 and $40, higher than 4.5 stars!") == ["between", "$20", "and", "$40", "higher",
                                                                   "than", "4.5", "stars"]


def test_rouge_values_by_hand():
    assert rouge_scores("a b c", "a b c") == {"rouge1": 1.0, "rouge2": 1.0, "rougeL": 1.0}
    # unigrams: 2 of 3 predicted, 2 of 4 reference -> P 2/3, R 1/2 -> F 4/7
    assert rouge_n("the red mug", "a red blue mug", 1) == pytest.approx(4 / 7)
    assert rouge_n("the red mug", "a red blue mug", 2) == 0.0
    assert lcs_length("a b c d".split(), "a c b d".split()) == 3
    assert rouge_l("a b c d", "a c b d") == pytest.approx(0.75)
    assert rouge_n("a a a", "a", 1) == pytest.approx(0.5)  # clipped counts: 1 match, P 1/3, R 1
    assert rouge_scores("", "x") == {"rouge1": 0.0, "rouge2": 0.0, "rougeL": 0.0}

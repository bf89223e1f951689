"""The exact-match oracle and claim checks on hand-made item truths."""

from __future__ import annotations

from environments.worlds.oracle import ExactMatchOracle, claim_holds
from environments.worlds.truth import ItemTruth


def _item(item_id: str, cuisine: str, diet: list[str], signatures: list[str]) -> ItemTruth:
    return ItemTruth(item_id=item_id, attributes={"cuisine": cuisine, "diet": diet}, shown={}, cluster=0,
                     signatures=signatures, popularity=0.1)


ITEMS = {i.item_id: i for i in [_item("a", "thai", ["vegan"], ["duck ramen"]), _item("b", "thai", [], ["churros"]),
                                _item("c", "greek", ["vegan"], []), _item("d", "greek", [], [])]}


def test_claims_hold_for_wanted_values_unwanted_absences_and_signatures() -> None:
    a = ITEMS["a"]
    assert claim_holds(a, ["cuisine", "thai", 1]) and not claim_holds(a, ["cuisine", "greek", 1])
    assert claim_holds(a, ["cuisine", "greek", -1]) and not claim_holds(a, ["cuisine", "thai", -1])
    assert claim_holds(a, ["diet", "vegan", 1]) and claim_holds(a, ["signature", "duck ramen", 1])
    assert not claim_holds(a, ["signature", "churros", 1])


def test_scores_and_hit_probability_break_ties_by_expectation() -> None:
    oracle = ExactMatchOracle(ITEMS, ["a", "b", "c", "d"])
    assert oracle.hit_probability([], "a", 1) == 0.25  # all tied: 1 of 4
    claims = [["cuisine", "thai", 1]]
    assert list(oracle.scores(claims)) == [1, 1, 0, 0]
    assert oracle.hit_probability(claims, "a", 1) == 0.5 and oracle.hit_probability(claims, "c", 2) == 0.0
    claims += [["signature", "churros", -1], ["diet", "vegan", 1]]
    assert list(oracle.scores(claims)) == [2, 0, 1, 0]
    assert oracle.hit_probability(claims, "a", 1) == 1.0 and oracle.hit_probability(claims, "d", 3) == 0.5

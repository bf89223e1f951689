from environments.models import Episode, ItemMention, ItemSetState, TerminationReason, TurnEvaluation
from simulators.metrics import Purchased, RecommendationFit, ResultCount


def episode(*records: TurnEvaluation) -> Episode:
    return Episode(id="e", index=0, config_hash="x", seed=0, environment="tracer_shopping",
                   termination=TerminationReason.purchased, evaluations=list(records))


def test_results_fit_and_purchase_per_turn():
    ep = episode(
        TurnEvaluation(turn=1, n_candidates=400),
        TurnEvaluation(turn=2, n_candidates=12, mentions=[ItemMention(role="seller", item_id="p", turn_index=3,
                                                                      attitude="dislike")]),
        TurnEvaluation(turn=3, n_candidates=12, item_set=ItemSetState(items=["p"], added=["p"])))
    assert ResultCount().per_turn(ep, 4) == {1: 400.0, 2: 12.0, 3: 12.0, 4: 12.0}
    assert not ResultCount.higher_is_better
    assert RecommendationFit().per_turn(ep, 4) == {2: 0.0, 3: 0.0, 4: 0.0}  # a misfit is carried forward
    assert Purchased().per_turn(ep, 3) == {1: 0.0, 2: 0.0, 3: 1.0}
    liked = episode(TurnEvaluation(turn=1, n_candidates=3, mentions=[
        ItemMention(role="seller", item_id="p", turn_index=1, attitude="like")]))
    assert RecommendationFit().per_turn(liked, 1) == {1: 1.0}

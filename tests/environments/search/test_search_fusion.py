import numpy as np
import pytest

from environments.search.fusion import reciprocal_rank_fusion


def test_rrf_sums_one_over_k_plus_rank_across_lists():
    fused = reciprocal_rank_fusion([[2, 0], [0, 3]], n_items=5)
    assert fused.tolist() == pytest.approx([1 / 62 + 1 / 61, 0.0, 1 / 61, 1 / 62, 0.0])
    # an item second in both lists beats one first in a single list
    assert np.argmax(reciprocal_rank_fusion([[1, 0], [2, 0]], n_items=3)) == 0
    assert reciprocal_rank_fusion([], n_items=2).tolist() == [0.0, 0.0]
    with pytest.raises(ValueError, match="twice"):
        reciprocal_rank_fusion([[1, 1]], n_items=2)

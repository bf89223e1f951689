import numpy as np

from environments.catalog import Catalog
from environments.models import CatalogManifest, Item
from environments.search.multivector import MultiVectorIndex


def _catalog():
    items = [
        Item(id="a", title="A", attributes={"cuisine": "greek", "ambience": "trendy"}),
        Item(id="b", title="B", attributes={"cuisine": "greek", "ambience": "rustic"}),
        Item(id="c", title="C", attributes={"cuisine": "thai", "ambience": "trendy"}),
        Item(id="d", title="D", description="noodle soup from hanoi"),  # no attributes at all
    ]
    return Catalog(CatalogManifest(name="mv"), items)


def test_items_satisfying_every_stated_preference_rank_first(hash_encoder, tmp_path):
    index = MultiVectorIndex.build(_catalog(), hash_encoder, cache_dir=str(tmp_path))
    scores = index.scores(["greek cuisine please", "a trendy ambience"])
    assert int(np.argmax(scores)) == 0
    assert scores[0] > scores[1] and scores[0] > scores[2]
    one = index.scores(["greek cuisine please"])
    assert one[0] == one[1] > one[2]  # both greek places match the one preference equally


def test_items_without_attributes_are_scored_by_their_description(hash_encoder, tmp_path):
    index = MultiVectorIndex.build(_catalog(), hash_encoder, cache_dir=str(tmp_path))
    scores = index.scores(["noodle soup"])
    assert int(np.argmax(scores)) == 3
    assert not index.scores(["   "]).any() and index.scores([]).shape == (4,)

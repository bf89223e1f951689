from environments.models import Item, Review
from environments.search.documents import DENSE_DESCRIPTION_CHARS, dense_document, lexical_document

ITEM = Item(id="x", title="Green Leaf", category="vegan_restaurant",
            attributes={"outdoor_seating": "yes", "good_for": ["kids", "late_night"]},
            description="Plant-based bowls.")
REVIEW = Review(id="r", item_id="x", user_id="u", rating=5, text="Lovely patio.")


def test_lexical_document_has_every_field_with_words_not_identifiers():
    doc = lexical_document(ITEM, [REVIEW])
    for part in ("Green Leaf", "vegan restaurant", "outdoor seating yes", "good for kids",
                 "good for late night", "Plant-based bowls.", "Lovely patio."):
        assert part in doc
    assert "_" not in doc


def test_dense_document_is_short_and_leaves_out_reviews():
    doc = dense_document(ITEM)
    assert doc.startswith("Green Leaf (vegan restaurant).")
    assert "outdoor seating: yes" in doc and "good for: kids, late night" in doc
    assert "Lovely patio" not in doc
    long = ITEM.model_copy(update={"description": "word " * 1000})
    assert len(dense_document(long)) < len(doc) + DENSE_DESCRIPTION_CHARS + 10

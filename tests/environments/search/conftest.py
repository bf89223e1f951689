"""A dozen hand-written restaurants whose texts make the expected search results obvious.

The pho place is described without the words "noodle", "soup" or "Vietnam", so a dense
query paraphrasing it shares no stem with its documents: lexical search cannot find it,
a sentence encoder should.
"""

from __future__ import annotations


import pytest
from crsim_testing import HashEncoder

from environments.catalog.store import Catalog
from environments.models import CatalogManifest, Item, Review

RESTAURANTS = [
    ("pho", "Pho Saigon", "vietnamese", "$", "no", ["lunch"],
     "Slow-simmered beef broth with rice vermicelli, fresh basil, bean sprouts and lime.",
     ["The broth is rich and the herbs are fresh.", "Quick service, tiny room."]),
    ("trattoria", "Trattoria Roma", "italian", "$$", "yes", ["dates", "groups"],
     "Wood-fired pizza and handmade pasta in a candle-lit dining room.",
     ["Best margherita pizza in town.", "Romantic terrace."]),
    ("taqueria", "Taqueria El Sol", "mexican", "$", "yes", ["groups", "kids"],
     "Street-style tacos al pastor, carnitas and fresh salsa verde.",
     ["The tacos are cheap and fantastic.", "Loud on weekends."]),
    ("sushi", "Sushi Zen", "japanese", "$$$", "no", ["dates"],
     "Omakase counter serving nigiri and sashimi flown in daily.",
     ["Pristine fish, attentive chef.", "Expensive but worth it."]),
    ("curry", "Curry House", "indian", "$$", "no", ["groups"],
     "Spicy curry, tandoori chicken and garlic naan from a clay oven.",
     ["The lamb vindaloo was fiery.", "Generous portions."]),
    ("bistro", "Le Petit Bistro", "french", "$$$", "yes", ["dates"],
     "Classic bistro dishes: steak frites, duck confit and creme brulee.",
     ["Lovely wine list.", "Charming waiters."]),
    ("burger", "Burger Barn", "american", "$", "yes", ["kids", "groups"],
     "Smash burgers, crinkle fries and thick milkshakes.",
     ["Kids loved the milkshakes.", "Greasy in a good way."]),
    ("greenleaf", "Green Leaf", "vegan", "$$", "yes", ["lunch"],
     "Plant-based bowls, salads and cold-pressed juices.",
     ["Great vegan options.", "Bright and airy."]),
    ("seoul", "Seoul BBQ", "korean", "$$", "no", ["groups"],
     "Tabletop grills with marinated short ribs and banchan.",
     ["Fun for a crowd.", "There is a karaoke room upstairs."]),
    ("athens", "Athens Grill", "greek", "$", "yes", ["lunch", "kids"],
     "Gyros, souvlaki and lemon potatoes with tzatziki.",
     ["Friendly owner.", "Huge plates."]),
    ("dragon", "Dragon Palace", "chinese", "$$", "no", ["groups", "kids"],
     "Dim sum carts on weekends, Peking duck and hand-pulled dishes.",
     ["Dumplings were excellent.", "Busy on Sundays."]),
    ("addis", "Addis Kitchen", "ethiopian", "$", "no", ["groups"],
     "Injera platters with lentil stews, shared from one big plate.",
     ["Eat with your hands!", "Warm welcome."]),
]


def make_search_catalog() -> Catalog:
    items, reviews = [], []
    for key, title, cuisine, price, outdoor, good_for, description, texts in RESTAURANTS:
        items.append(Item(
            id=key, title=title, category="restaurant", description=description,
            attributes={"cuisine": cuisine, "price_range": price, "outdoor_seating": outdoor,
                        "good_for": good_for},
        ))
        for n, text in enumerate(texts):
            reviews.append(Review(id=f"{key}-r{n}", item_id=key, user_id=f"u{n}", rating=4.0, text=text))
    return Catalog(CatalogManifest(name="t", domain="restaurant", item_noun="restaurants"), items, reviews)


@pytest.fixture
def catalog() -> Catalog:
    return make_search_catalog()


@pytest.fixture
def counting_encoder() -> HashEncoder:
    return HashEncoder(model_id="counting-bow-64", dim=64)


@pytest.fixture(scope="session")
def minilm():
    """The real packaged MiniLM, loaded once for the whole session (offline)."""
    from environments.search import get_encoder

    return get_encoder()

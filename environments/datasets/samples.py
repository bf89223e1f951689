"""Small synthetic files in the Yelp and Amazon 2018 formats, for tests, demos and benchmarks.

The real datasets cannot ship with crsim (licences, sizes), yet the import path, the
end-to-end sweep on an imported catalog and the import benchmark all need files in
exactly those formats. These writers produce them from a seed: businesses/products
with attributes the reviews talk about (so retrieval has something to find), reviews
with the fields and value conventions of the real files (Yelp's Python-literal
attribute strings, Amazon's string vote counts). Nothing here is read by adapters.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

CUISINES = ["Mexican", "Thai", "Italian", "Japanese", "Indian", "Greek", "Korean", "French"]
DISHES = {"Mexican": "tacos al pastor", "Thai": "green curry", "Italian": "handmade pasta", "Japanese": "sushi",
          "Indian": "butter chicken", "Greek": "souvlaki", "Korean": "bibimbap", "French": "steak frites"}
NOISE = ["u'quiet'", "u'average'", "u'loud'"]
AMBIENCE = ["romantic", "casual", "trendy", "classy", "hipster"]
FILLER = ("We came on a weeknight and the staff were friendly. Parking was easy enough. "
          "I would come back with friends. The portions were generous and the menu had plenty of choice. ")


def _lines(rows: Iterator[dict[str, Any]], path: Path) -> int:
    count = 0
    with path.open("wb", buffering=1 << 20) as handle:
        for row in rows:
            handle.write(orjson.dumps(row, option=orjson.OPT_APPEND_NEWLINE))
            count += 1
    return count


def yelp_businesses(n: int, seed: int = 0, city: str = "Philadelphia") -> list[dict[str, Any]]:
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        cuisine = CUISINES[i % len(CUISINES)]
        ambience = {a: rng.random() < 0.3 for a in AMBIENCE}
        ambience[AMBIENCE[i % len(AMBIENCE)]] = True
        rows.append({
            "business_id": f"biz{i:05d}", "name": f"{cuisine} Place {i}", "address": f"{100 + i} Main St",
            "city": city, "state": "PA", "postal_code": "19107", "latitude": 39.95, "longitude": -75.16,
            "stars": round(rng.uniform(2.5, 5.0) * 2) / 2, "review_count": 10 + rng.randrange(40), "is_open": 1,
            "attributes": {
                "RestaurantsPriceRange2": str(1 + i % 4), "NoiseLevel": NOISE[i % 3],
                "OutdoorSeating": "True" if i % 2 else "False", "WiFi": "u'free'" if i % 3 else "u'no'",
                "Ambience": str(ambience), "Alcohol": "u'full_bar'" if i % 2 else "u'none'",
            },
            "categories": f"{cuisine}, Restaurants, Food", "hours": {"Monday": "11:0-22:0"},
        })
    return rows


def yelp_review(i: int, business: dict[str, Any], n_users: int, rng: random.Random, filler: int = 1) -> dict[str, Any]:
    cuisine = business["categories"].split(",")[0]
    stars = rng.choice([5, 5, 4, 4, 4, 3, 2])
    noise = business["attributes"]["NoiseLevel"][2:-1]
    text = (f"The {DISHES[cuisine]} here is {'amazing' if stars >= 4 else 'just okay'}. "
            f"Real {cuisine.lower()} cooking and a {noise} room. " + FILLER * filler)
    return {"review_id": f"rev{i:09d}", "user_id": f"user{rng.randrange(n_users):07d}",
            "business_id": business["business_id"], "stars": stars, "useful": rng.randrange(5), "funny": 0,
            "cool": 0, "text": text.strip(), "date": f"20{10 + i % 12}-0{1 + i % 9}-1{i % 10} 12:3{i % 10}:00"}


def write_yelp(directory: Path, n_businesses: int = 40, reviews_per_business: int = 8, n_users: int = 60,
               seed: int = 0) -> tuple[Path, Path]:
    """business.json and review.json in `directory`; every business gets its reviews."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    businesses = yelp_businesses(n_businesses, seed)
    _lines(iter(businesses), directory / "business.json")
    reviews = (yelp_review(i, businesses[i % n_businesses], n_users, rng)
               for i in range(n_businesses * reviews_per_business))
    _lines(reviews, directory / "review.json")
    return directory / "business.json", directory / "review.json"


def write_yelp_reviews(path: Path, size_bytes: int, businesses: list[dict[str, Any]], n_users: int,
                       seed: int = 0) -> int:
    """A Yelp review.json of about `size_bytes` (typical ~700-byte lines); returns the number of reviews."""
    rng = random.Random(seed)
    count = written = 0
    with Path(path).open("wb", buffering=1 << 22) as handle:
        while written < size_bytes:
            line = orjson.dumps(yelp_review(count, businesses[rng.randrange(len(businesses))], n_users, rng, filler=4),
                                option=orjson.OPT_APPEND_NEWLINE)
            handle.write(line)
            written += len(line)
            count += 1
    return count


PRODUCTS = [("Trail Running Shoe", "Shoes", "Mesh"), ("Rain Jacket", "Outerwear", "Nylon"),
            ("Wool Socks", "Socks", "Merino wool"), ("Hiking Backpack", "Bags", "Polyester")]
BRANDS = ["Northpeak", "Riverstone", "Alpaca Works", "Summit Gear", "Coastline"]
COLORS = ["Black", "Red", "Blue", "Green", "Grey"]


def write_amazon2018(directory: Path, n_products: int = 40, reviews_per_product: int = 8, n_users: int = 60,
                     seed: int = 0) -> tuple[Path, Path]:
    """Sports_and_Outdoors.json (reviews) and meta_Sports_and_Outdoors.json in `directory`."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    meta = []
    for i in range(n_products):
        name, kind, material = PRODUCTS[i % len(PRODUCTS)]
        brand, color = BRANDS[i % len(BRANDS)], COLORS[(i // 4) % len(COLORS)]
        meta.append({
            "asin": f"B{i:09d}", "title": f"{brand} {color} {name}", "brand": brand,
            "category": ["Sports & Outdoors", "Outdoor Recreation", kind], "main_cat": "Sports & Outdoors",
            "description": [f"A {color.lower()} {name.lower()} made of {material.lower()}."],
            "feature": [f"Material: {material}", f"Color: {color}", "Built for long days outside"],
            "details": {"Item Weight:": "1 pounds", "Department:": "Unisex"}, "price": f"${20 + i}.99",
            "also_buy": [], "rank": f"{1000 + i} in Sports & Outdoors", "imageURL": [],
        })
    _lines(iter(meta), directory / "meta_Sports_and_Outdoors.json")

    def reviews() -> Iterator[dict[str, Any]]:
        for i in range(n_products * reviews_per_product):
            product = meta[i % n_products]
            rating = rng.choice([5.0, 5.0, 4.0, 4.0, 3.0, 1.0])
            yield {"overall": rating, "verified": rng.random() < 0.8, "reviewTime": "09 13, 2016",
                   "reviewerID": f"A{rng.randrange(n_users):06d}", "asin": product["asin"],
                   "style": {"Size:": " Large"}, "reviewerName": "Sam",
                   "reviewText": f"This {product['title'].lower()} is {'great' if rating >= 4 else 'disappointing'}. "
                                 f"The {product['feature'][0].split(': ')[1].lower()} feels solid.",
                   "summary": "Great buy" if rating >= 4 else "Not for me", "unixReviewTime": 1473724800 + i,
                   "vote": str(rng.randrange(3)) if i % 3 == 0 else None}

    _lines((r if r["vote"] is not None else {k: v for k, v in r.items() if k != "vote"} for r in reviews()),
           directory / "Sports_and_Outdoors.json")
    return directory / "Sports_and_Outdoors.json", directory / "meta_Sports_and_Outdoors.json"

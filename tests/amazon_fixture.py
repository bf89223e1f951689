"""A review-only Amazon catalog the tests write themselves: Amazon 2018 5-core format, no metadata.

Headphones that differ in what owners write about (battery, sound, fit, noise
cancelling, microphone, connection, colour, weight, case), each said several ways, with
the chatter, complaints and hedges real reviews have. Every product has at least five
reviews and every reviewer at least five (the 5-core property). Lines carry the fields
of the public files: reviewerID, asin, reviewerName, helpful, reviewText, overall,
summary, unixReviewTime, reviewTime. Seeded: the same seed writes the same bytes.
"""

from __future__ import annotations

import json
import random
import string
from datetime import datetime, timezone
from pathlib import Path

# feature -> value -> sentences praising (or plainly stating) that value
FEATURES: dict[str, dict[str, list[str]]] = {
    "battery": {
        "long": ["The battery life is fantastic, easily thirty hours.", "Battery lasts forever on a single charge.",
                 "I only charge the battery once a week.", "Battery life is long enough for two long flights."],
        "average": ["Battery life is decent, about a day of use.", "The battery gets me through a work day.",
                    "Battery lasts around eight hours, which is fine."],
    },
    "sound": {
        "bass": ["The bass is deep and punchy.", "Sound is warm with heavy bass.",
                 "Bass heads will love the thumping low end."],
        "balanced": ["The sound is clear and balanced.", "Sound is neutral, nothing is exaggerated.",
                     "Vocals sound natural and the mids are clean."],
        "bright": ["The treble is crisp and detailed.", "Sound is bright with sparkling highs.",
                   "Cymbals sound crisp and airy."],
    },
    "fit": {
        "over-ear": ["The ear cushions are soft and plush.", "The cushions cover my whole ear comfortably.",
                     "Plush memory foam cushions, very comfy for hours."],
        "in-ear": ["The silicone tips seal well in my ears.", "The earbuds sit snug and never fall out.",
                   "Small earbuds with a secure fit while running."],
    },
    "noise": {
        "cancelling": ["The noise cancelling is superb on the subway.", "Noise cancelling blocks out the office chatter.",
                       "Active noise cancelling makes plane engines vanish."],
        "open": ["They let some outside sound in, which I like when walking.",
                 "No noise cancelling, but the isolation is okay at home."],
    },
    "microphone": {
        "clear": ["The microphone is clear on calls.", "People say my voice sounds clear through the mic.",
                  "The mic picks up my voice well in meetings."],
    },
    "connection": {
        "bluetooth": ["The bluetooth connection is rock solid.", "Pairing over bluetooth took seconds.",
                      "Bluetooth range is great, I can leave my phone in the kitchen."],
        "wired": ["The cable is long and sturdy.", "A wired connection means no lag while gaming.",
                  "The braided cable feels durable."],
    },
    "color": {
        "black": ["The matte black color looks sleek."], "white": ["The white color stays clean and bright."],
        "red": ["The red color is bold and sharp."], "blue": ["The navy blue color looks classy."],
    },
    "weight": {
        "light": ["They are so light I forget I'm wearing them.", "Lightweight headband, no headaches."],
        "heavy": ["They feel solid and hefty, built like a tank."],
    },
    "case": {
        "hard": ["The hard carrying case protects them in my backpack.", "Comes with a sturdy zip case."],
        "pouch": ["The soft pouch is handy for travel."],
    },
    "sport": {
        "sweatproof": ["They survived my sweaty gym workouts.", "Sweatproof, I wear them for every run."],
    },
}
COMPLAINTS = ["The headband started to crack after a month.", "The right side cut out a few times.",
              "The controls are confusing at first.", "Not as loud as I expected.",
              "The app is clunky and keeps asking to update."]
CHATTER = ["Arrived two days early.", "Bought these as a gift for my brother.", "Packaging was simple.",
           "I use them mostly for podcasts.", "My old pair finally died, so here we are.",
           "Ordered on a Sunday and had them by Tuesday.", "I've owned several pairs over the years.",
           "Hard to say how they compare to pricier brands.", "Maybe I just got a good unit."]
SUMMARIES = {5: ["Love them", "Great headphones", "Five stars", "Exactly what I wanted"],
             4: ["Very good", "Solid pair", "Happy overall"],
             3: ["Okay", "Mixed feelings"], 2: ["Disappointed", "Not great"]}
NAMES = ["Sam", "J. Rivera", "Alex P.", "Music Fan", "Chris", "Dana K.", "Amazon Customer", "Taylor", "M. Chen",
         "Jordan", "Pat", "R. Singh"]


def _product(rnd: random.Random) -> dict[str, str]:
    """A product: one value for each core feature, some optional features."""
    values = {name: rnd.choice(sorted(options)) for name, options in FEATURES.items()
              if name in ("battery", "sound", "fit", "connection", "color")}
    for optional in ("noise", "microphone", "weight", "case", "sport"):
        if rnd.random() < 0.5:
            values[optional] = rnd.choice(sorted(FEATURES[optional]))
    return values


def _review_text(product: dict[str, str], rating: int, rnd: random.Random) -> str:
    praised = rnd.sample(sorted(product), k=min(len(product), rnd.randint(1, 3)))
    parts = [rnd.choice(FEATURES[name][product[name]]) for name in praised]
    if rating <= 3:
        parts.append(rnd.choice(COMPLAINTS))
    if rnd.random() < 0.6:
        parts.insert(rnd.randint(0, len(parts)), rnd.choice(CHATTER))
    return " ".join(parts)


def write_amazon2018_5core(path: Path, *, n_products: int = 80, seed: int = 0) -> Path:
    """Write the review file (one JSON object per line) and return its path."""
    rnd = random.Random(seed)
    asins = sorted({"B0" + "".join(rnd.choices(string.ascii_uppercase + string.digits, k=8))
                    for _ in range(n_products)})
    products = {asin: _product(rnd) for asin in asins}
    slots = [(asin, k) for asin in asins for k in range(rnd.randint(5, 10))]
    n_users = max(5, len(slots) // 6)
    users = ["A" + "".join(rnd.choices(string.ascii_uppercase + string.digits, k=13)) for _ in range(n_users)]
    reviewed: dict[str, set[str]] = {user: set() for user in users}
    rows = []
    for position, (asin, _) in enumerate(slots):
        # round-robin from a shifting start: every reviewer gets >= 5 reviews, none twice per product
        user = next(users[(position + step) % n_users] for step in range(n_users)
                    if asin not in reviewed[users[(position + step) % n_users]])
        reviewed[user].add(asin)
        rating = rnd.choices([5, 4, 3, 2], weights=[50, 30, 12, 8])[0]
        when = 1_400_000_000 + rnd.randint(0, 150_000_000)
        day = datetime.fromtimestamp(when, tz=timezone.utc)
        helpful = rnd.randint(0, 3)
        rows.append({"reviewerID": user, "asin": asin, "reviewerName": rnd.choice(NAMES),
                     "helpful": [helpful, helpful + rnd.randint(0, 2)],
                     "reviewText": _review_text(products[asin], rating, rnd), "overall": float(rating),
                     "summary": rnd.choice(SUMMARIES[rating]), "unixReviewTime": when,
                     "reviewTime": f"{day.month:02d} {day.day}, {day.year}"})
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path

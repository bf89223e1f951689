"""Signature facts: the one detail that tells near-identical items apart.

Real catalogs hold many items that share most attributes (a dozen casual, cheap Mexican
places downtown) and differ in a dish or a scene only some reviews mention. A world item
gets one or two signatures; a few of its reviews mention them (`REVIEW_FORMS`), and a
seeker who knows its target may remember one (the seeker's own wording lives with the
seeker). Signatures are labelled in `truth/items.jsonl` and `truth/reviews.jsonl`.
"""

from __future__ import annotations

SIGNATURES: dict[str, list[str]] = {
    "restaurant": [
        "lamb shank", "fish tacos", "duck ramen", "truffle fries", "lobster roll", "short rib", "crab cakes",
        "banana bread", "cardamom buns", "pork belly bao", "chili crab", "beef cheeks", "smoked trout",
        "pistachio gelato", "cheesecake", "grilled octopus", "fried cauliflower", "carrot cake",
        "clam chowder", "chicken wings", "lemon tart", "pumpkin soup", "beet salad", "meatballs",
        "oyster platter", "goat cheese salad", "churros", "key lime pie", "mushroom toast", "crispy rice",
        "sticky toffee pudding", "cornbread", "tiramisu", "halloumi fries", "bone marrow", "shrimp and grits",
        "eggplant parm", "chocolate souffle", "peach cobbler", "salmon skewers", "hot chocolate",
        "house lemonade", "cold brew", "sourdough loaf", "spiced lentil soup", "scallops",
    ],
    "movie": [
        "train heist", "courtroom speech", "dance number", "chess match", "plane crash", "bank robbery",
        "wedding disaster", "talking dog", "haunted lighthouse", "time loop", "road trip", "boxing match",
        "car chase through a market", "twin switch", "hostage standoff", "storm at sea", "masked ball",
        "rooftop duel", "jailbreak", "alien signal", "treasure map", "spelling bee", "cooking contest",
        "lost diary", "ghost ship", "underwater rescue", "marathon race", "stolen painting",
        "secret tunnel", "final concert", "poker game", "snowed-in cabin", "runaway robot", "magic mirror",
        "amnesia twist", "elevator trap", "football final", "desert crossing", "carnival chase", "kidnapped heir",
        "wrong-number phone call", "dinner party murder", "hot-air balloon escape", "sword fight",
    ],
}

REVIEW_FORMS: dict[str, list[str]] = {
    "restaurant": [
        "Whatever you do, order the {s}.",
        "Their {s} is the thing people come back for.",
        "We shared the {s} and fought over the last bite.",
        "The {s} is worth the trip on its own.",
        "Apparently the {s} is famous here, and I get why.",
    ],
    "movie": [
        "The {s} scene is the one everyone talks about.",
        "That {s} sequence had me holding my breath.",
        "I still think about the {s}.",
        "The {s} alone makes it worth watching.",
        "Nobody warned me about the {s}, and it got me.",
    ],
}

"""How a seeker asks for a world's values: a phrase bank disjoint from the reviews' one.

A seeker who says exactly what the reviews say ("cozy dining room") hands a lexical
recommender the answer; a seeker who recites the schema ("the ambience should be cozy")
turns the dialogue into form-filling. People ask in their own, shorter words ("somewhere
snug and warm"), sometimes with the common word ("italian"), sometimes vaguely ("nothing
too pricey"). Every entry here is ours, and `DomainSpec` validation (see `domain.py`)
rejects any seeker phrase that is also a review phrase of the same domain.

`SEEKER_WORDS[domain][aspect][value]` lists the wants; `VAGUE` lists phrases that fit
more than one value of an ordered aspect (a seeker states them as its target's value).
"""

from __future__ import annotations

SeekerBank = dict[str, dict[str, list[str]]]

RESTAURANT_WORDS: SeekerBank = {
    "cuisine": {
        "italian": ["italian", "a good plate of pasta", "pizza and pasta"],
        "mexican": ["mexican", "tacos and burritos", "something Tex-Mex-ish but authentic"],
        "japanese": ["japanese", "sushi or ramen", "a sushi bar"],
        "chinese": ["chinese", "dumplings and noodles", "a dim sum place"],
        "indian": ["indian", "a proper curry house", "naan and curry"],
        "thai": ["thai", "spicy noodles and curries", "pad thai"],
        "french": ["french", "a bistro", "French classics"],
        "american": ["american", "burgers and fries", "good old comfort food"],
        "greek": ["greek", "gyros and grilled meats", "Mediterranean island food"],
        "korean": ["korean", "Korean barbecue", "kimchi and grilled meat"],
        "vietnamese": ["vietnamese", "a noodle soup place", "pho"],
        "lebanese": ["lebanese", "falafel and hummus", "Middle Eastern food"],
        "spanish": ["spanish", "small plates to share", "paella"],
        "ethiopian": ["ethiopian", "East African food", "injera"],
        "peruvian": ["peruvian", "South American food", "ceviche"],
    },
    "price_range": {
        "cheap": ["cheap", "a place that won't cost much", "budget food"],
        "moderate": ["moderately priced", "mid-priced", "nothing fancy price-wise"],
        "expensive": ["on the expensive side", "a pricier place", "upscale pricing is fine"],
        "luxury": ["a luxury place", "a real splurge", "money-no-object fine dining"],
    },
    "ambience": {
        "cozy": ["cozy", "somewhere snug and warm", "a homely little place"],
        "romantic": ["romantic", "a date spot", "somewhere intimate"],
        "casual": ["casual", "somewhere relaxed", "no dress code"],
        "trendy": ["trendy", "a hip place", "somewhere stylish and modern"],
        "rustic": ["rustic", "a country-style place", "wooden, farmhouse-like decor"],
        "elegant": ["elegant", "a classy, formal place", "fine-dining atmosphere"],
    },
    "noise": {
        "quiet": ["quiet", "somewhere we can hear each other", "a calm place"],
        "lively": ["lively", "a bit of buzz", "somewhere with energy"],
        "loud": ["loud", "a noisy party place", "somewhere with music blasting"],
    },
    "service": {
        "attentive": ["attentive waiters", "staff who look after you", "good table service"],
        "friendly": ["friendly service", "nice, welcoming staff", "people who are warm"],
        "efficient": ["efficient staff", "fast service", "somewhere quick"],
        "self-serve": ["self-serve", "order at the counter", "no waiters needed"],
    },
    "location_style": {
        "downtown": ["downtown", "in the city center", "central"],
        "waterfront": ["on the waterfront", "by the water", "with a view of the sea or a lake"],
        "neighborhood": ["a neighborhood place", "a local spot off the main streets", "a little local joint"],
        "rooftop": ["a rooftop", "up high with a view", "a roof terrace"],
        "countryside": ["in the countryside", "out of town", "somewhere rural"],
    },
    "dietary_options": {
        "vegan": ["vegan options", "vegan food", "nothing with animal products"],
        "vegetarian": ["vegetarian choices", "vegetarian food", "no meat for me"],
        "gluten-free": ["gluten-free options", "a gluten-free menu", "food for a celiac"],
        "halal": ["halal food", "halal options", "halal dishes"],
        "dairy-free": ["dairy-free options", "no dairy", "lactose-free food"],
    },
    "meal": {
        "breakfast": ["breakfast", "an early breakfast", "somewhere for the morning"],
        "brunch": ["brunch", "a weekend brunch", "a late-morning meal"],
        "lunch": ["lunch", "a lunch spot", "a midday meal"],
        "dinner": ["dinner", "an evening meal", "a sit-down dinner"],
        "late-night": ["late-night food", "somewhere open late", "food after midnight"],
    },
}

MOVIE_WORDS: SeekerBank = {
    "genre": {
        "action": ["action", "an action movie", "lots of fights and chases"],
        "comedy": ["comedy", "something funny", "a movie that makes me laugh"],
        "drama": ["drama", "a serious drama", "something emotional"],
        "horror": ["horror", "something scary", "a proper fright"],
        "thriller": ["thriller", "something suspenseful", "a tense thriller"],
        "romance": ["romance", "a love story", "something romantic"],
        "science fiction": ["sci-fi", "a science-fiction story", "futuristic stuff"],
        "fantasy": ["fantasy", "magic and dragons", "a fantasy world"],
        "animation": ["animated", "an animated film", "a cartoon"],
        "crime": ["crime", "a crime story", "mobsters and robberies"],
        "mystery": ["mystery", "a detective story", "a puzzle to solve"],
        "western": ["western", "cowboys", "the Wild West"],
    },
    "era": {
        "classic": ["a classic", "an old film", "something from the old days"],
        "1980s": ["the 1980s", "an eighties movie", "something from the 80s"],
        "1990s": ["the 1990s", "a nineties movie", "something from the 90s"],
        "2000s": ["the 2000s", "something from the early 2000s", "a noughties film"],
        "recent": ["recent", "something new", "a film from the last few years"],
    },
    "tone": {
        "dark": ["dark", "something grim", "a heavy, somber mood"],
        "lighthearted": ["lighthearted", "something light", "a fun, easy watch"],
        "heartwarming": ["heartwarming", "something that warms the heart", "a feel-good story"],
        "bittersweet": ["bittersweet", "happy and sad at once", "something a bit melancholic"],
        "satirical": ["satirical", "a satire", "something that pokes fun at society"],
    },
    "pacing": {
        "slow": ["slow-paced", "something that takes its time", "a slow burn"],
        "steady": ["a steady pace", "a moderate pace", "not too fast, not too slow"],
        "fast": ["fast-paced", "something that moves quickly", "no boring bits"],
    },
    "themes": {
        "friendship": ["friendship", "friends sticking together", "a buddy story"],
        "revenge": ["revenge", "someone getting even", "a vengeance story"],
        "coming of age": ["coming of age", "growing up", "a teenager finding their way"],
        "family": ["family", "family relationships", "parents and their kids"],
        "survival": ["survival", "staying alive against the odds", "people stranded somewhere"],
        "redemption": ["redemption", "someone making up for the past", "a second chance"],
        "forbidden love": ["a forbidden romance", "lovers who can't be together", "a secret romance"],
        "betrayal": ["a betrayal", "someone being betrayed", "backstabbing"],
        "identity": ["identity", "someone figuring out who they are", "a hidden identity"],
        "ambition": ["an ambitious hero", "someone chasing success", "a rise to power"],
    },
    "setting": {
        "big city": ["a big city", "set in a city", "urban"],
        "small town": ["a small town", "set in a village", "small-town life"],
        "outer space": ["outer space", "set in space", "spaceships"],
        "wilderness": ["the wilderness", "nature and mountains", "set in the wild"],
        "historical": ["historical", "a period piece", "set in the past"],
        "suburbs": ["the suburbs", "suburban life", "set in suburbia"],
    },
    "audience": {
        "kids": ["for kids", "something for children", "a kids' movie"],
        "all ages": ["for all ages", "something the whole family can watch", "a family film"],
        "teens": ["for teens", "a teen movie", "something for teenagers"],
        "mature": ["for adults", "a grown-up film", "adult content is fine"],
    },
}

SEEKER_WORDS: dict[str, SeekerBank] = {"restaurant": RESTAURANT_WORDS, "movie": MOVIE_WORDS}

# Vague wants: (aspect, phrase, values it fits). Stated for a target with one of them.
VAGUE: dict[str, list[tuple[str, str, tuple[str, ...]]]] = {
    "restaurant": [
        ("price_range", "nothing too pricey", ("cheap", "moderate")),
        ("price_range", "I don't mind paying for quality", ("expensive", "luxury")),
        ("noise", "not too noisy", ("quiet", "lively")),
        ("noise", "somewhere with some atmosphere", ("lively", "loud")),
        ("ambience", "somewhere a bit special", ("romantic", "elegant")),
    ],
    "movie": [
        ("era", "nothing too old", ("1990s", "2000s", "recent")),
        ("era", "something older", ("classic", "1980s")),
        ("pacing", "nothing too slow", ("steady", "fast")),
        ("tone", "nothing too depressing", ("lighthearted", "heartwarming", "satirical")),
        ("audience", "not a kids' film", ("teens", "mature")),
    ],
}

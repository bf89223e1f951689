from agents.steps.recommender.clarify import ClarifyInput, ClarifyStep, value_entropy
from environments.models import Item


def _item(i, cuisine, price):
    return Item(id=str(i), title=str(i), attributes={"cuisine": cuisine, "price_range": price, "city": "x"})


async def test_asks_about_the_aspect_that_splits_candidates():
    items = [_item(i, c, "cheap") for i, c in enumerate(["thai", "thai", "italian", "mexican"])]
    assert value_entropy(items, "price_range") == 0
    assert value_entropy(items, "cuisine") > 1
    out = await ClarifyStep().run(ClarifyInput([], items, [], "restaurants", 1))
    assert out.aspect == "cuisine" and "cuisine" in out.question


async def test_does_not_repeat_aspects_and_falls_back_to_open_question():
    items = [_item(i, c, p) for i, (c, p) in enumerate([("thai", "cheap"), ("italian", "expensive")])]
    out = await ClarifyStep().run(ClarifyInput([], items, ["cuisine"], "restaurants", 2))
    assert out.aspect == "price_range" and "price range" in out.question
    out = await ClarifyStep().run(ClarifyInput([], items, ["cuisine", "price_range"], "restaurants", 3))
    assert out.aspect is None and out.question.endswith("?")


async def test_multi_valued_attributes_count_each_value():
    items = [Item(id="a", title="a", attributes={"diet": ["vegan", "halal"]}),
             Item(id="b", title="b", attributes={"diet": ["vegan"]})]
    assert 0 < value_entropy(items, "diet") < 1.6


# --- mined aspects -------------------------------------------------------------------------

import itertools  # noqa: E402

from agents.steps.recommender.clarify import split_score  # noqa: E402
from environments.models import Role, Turn  # noqa: E402
from environments.search.aspects import AspectVocabulary, MinedAspect  # noqa: E402


def _vocabulary(items, values_by_aspect, alternatives=None):
    """A mined vocabulary over `items`: aspect -> item id -> values (absent: not mentioned); every two
    values of an aspect are alternatives unless `alternatives` (aspect -> pairs) says which are."""
    def pairs(aspect, values):
        if alternatives is not None:
            return alternatives.get(aspect, [])
        return list(itertools.combinations(values, 2))

    values = {a: sorted({x for xs in v.values() for x in xs}) for a, v in values_by_aspect.items()}
    return AspectVocabulary(
        fingerprint="x",
        aspects=[MinedAspect(name=a, terms=[a], n_items=len(v), values=values[a], alternatives=pairs(a, values[a]))
                 for a, v in values_by_aspect.items()],
        mentions={a: {i: 3 for i in v} for a, v in values_by_aspect.items()},
        item_values={a: {i: list(vs) for i, vs in v.items()} for a, v in values_by_aspect.items()},
        review_counts={item.id: 3 for item in items},
    )


def _bare(n):
    return [Item(id=f"p{i}", title=f"p{i}") for i in range(n)]


async def test_a_catalog_without_attributes_is_asked_about_mined_aspects():
    items = _bare(6)
    mined = _vocabulary(items, {
        "smell": {"p0": ["lavender"], "p1": ["citrus"], "p2": ["lavender"], "p3": ["vanilla"], "p4": ["citrus"],
                  "p5": ["vanilla"]},
        "bottle": {i.id: ["plastic"] for i in items},  # every candidate the same: asks nothing
    })
    step = ClarifyStep()
    out = await step.run(ClarifyInput([], items, [], "products", 1, (), mined))
    assert out.aspect == "smell" and "smell" in out.question and "?" in out.question
    assert any(v in out.question for v in ("lavender", "citrus", "vanilla"))  # offers two of the values
    again = await step.run(ClarifyInput([], items, ["smell"], "products", 2, (), mined))
    # never "smell" twice; "bottle" does not split them, so it is asked about openly, no options offered
    assert again.aspect == "bottle" and "plastic" not in again.question and "?" in again.question
    last = await step.run(ClarifyInput([], items, ["smell", "bottle"], "products", 3, (), mined))
    assert last.aspect is None  # nothing left to ask about


async def test_questions_vary_in_wording():
    items = _bare(4)
    questions = set()
    for name in ("smell", "battery", "sound", "fit", "color", "weight"):
        mined = _vocabulary(items, {name: {"p0": ["a"], "p1": ["b"], "p2": ["c"], "p3": ["a"]}})
        for turn in (1, 2, 3):
            out = await ClarifyStep().run(ClarifyInput([], items, [], "products", turn, (), mined))
            questions.add(out.question.replace(name, "{}"))
    assert len(questions) >= 3


async def test_partial_attributes_and_mined_aspects_compete():
    items = [Item(id=f"p{i}", title=f"p{i}", attributes={"cuisine": c} if c else {})
             for i, c in enumerate(["thai", None, None, None, "greek", None])]
    mined = _vocabulary(items, {"staff": {i.id: [v] for i, v in zip(items, ["friendly", "rude", "slow", "friendly",
                                                                            "quick", "rude"])}})
    out = await ClarifyStep().run(ClarifyInput([], items, [], "restaurants", 1, ("cuisine",), mined))
    assert out.aspect == "staff"  # known for all six beats known for two
    full = [Item(id=f"p{i}", title=f"p{i}", attributes={"cuisine": c}) for i, c in
            enumerate(["thai", "greek", "thai", "mexican", "greek", "korean"])]
    mined = _vocabulary(full, {"staff": {i.id: [v] for i, v in zip(full, ["friendly"] * 4 + ["rude"] * 2)}})
    out = await ClarifyStep().run(ClarifyInput([], full, [], "restaurants", 1, ("cuisine",), mined))
    assert out.aspect == "cuisine" and "cuisine" in out.question  # four cuisines split them better


async def test_an_attribute_most_candidates_have_comes_before_a_mined_aspect_that_splits_better():
    items = [Item(id=f"p{i}", title=f"p{i}", attributes={"cuisine": c})
             for i, c in enumerate(["thai", "thai", "thai", "thai", "greek", "greek"])]
    six_ways = ["warm", "three-course", "after-work", "late", "quiet", "long"]
    mined = _vocabulary(items, {"evening": {i.id: [v] for i, v in zip(items, six_ways)}})
    out = await ClarifyStep().run(ClarifyInput([], items, [], "restaurants", 1, ("cuisine",), mined))
    assert out.aspect == "cuisine"
    out = await ClarifyStep().run(ClarifyInput([], items, ["cuisine"], "restaurants", 2, ("cuisine",), mined))
    assert out.aspect == "evening"  # asked once the listed attributes are


async def test_skips_what_the_seeker_already_said_and_mined_twins_of_attributes():
    items = [Item(id=f"p{i}", title=f"p{i}", attributes={"price_range": p})
             for i, p in enumerate(["cheap", "moderate", "cheap", "expensive"])]
    mined = _vocabulary(items, {
        "prices": {i.id: [v] for i, v in zip(items, ["fair", "steep", "fair", "low"])},
        "patio": {i.id: [v] for i, v in zip(items, ["sunny", "shady", "heated", "sunny"])},
    })
    said = [Turn(index=0, role=Role.recommender, text="Hello?"),
            Turn(index=1, role=Role.seeker, text="Somewhere with a nice patio.")]
    out = await ClarifyStep().run(ClarifyInput(said, items, [], "restaurants", 1, ("price_range",), mined))
    assert out.aspect == "price_range"  # "patio" was already talked about
    out = await ClarifyStep().run(ClarifyInput(said, items, ["price_range"], "restaurants", 2, ("price_range",),
                                               mined))
    assert out.aspect is None  # "prices" repeats the attribute "price_range"


def test_split_score_weights_rank_and_knowledge():
    values = [("a",), ("b",), ("a",), ("b",)]
    assert split_score(values) == 1.0  # plain entropy when all is known and equal
    assert split_score(values, known=[1, 1, 0, 0]) == 0.5  # half of them speak to it
    top_heavy = split_score([("a",), ("a",), ("b",), ("c",)], weights=[1, 1, 0.01, 0.01])
    assert top_heavy < split_score([("a",), ("a",), ("b",), ("c",)])  # the best-ranked agree: little to learn
    assert split_score([(), ()]) == 0.0


def test_prompt_lists_review_aspects_for_the_llm():
    items = _bare(2)
    mined = _vocabulary(items, {"smell": {"p0": ["lavender"], "p1": ["citrus"]}})
    variables = ClarifyStep().prompt_variables(ClarifyInput([], items, [], "products", 1, (), mined))
    assert "smell (e.g. citrus, lavender)" in variables["review_aspects"]
    assert "smell: lavender (from reviews)" in variables["candidates"]
    from agents.prompts import load_prompt

    rendered = load_prompt("clarify_question").render(**variables)  # every placeholder is filled
    assert any("Topics reviewers write about, not asked yet: <<<smell" in text for _, text in rendered)


def test_the_sparse_score_equals_split_score_to_the_bit():
    """The step scores from the candidates with values only; the floats must not move."""
    import random

    from agents.steps.recommender.clarify import MISSING, _sparse_split_score

    rnd = random.Random(0)
    for _ in range(200):
        n = rnd.randint(1, 60)
        values = [rnd.choice([(), (MISSING,), ("a",), ("b",), ("a", "c"), ("d",)]) for _ in range(n)]
        weights = [1.0 / (rank ** 0.5) for rank in range(1, n + 1)]
        known = [rnd.choice([0.0, 0.3, 1.0, rnd.random()]) for _ in range(n)]
        spoken = [(v, w * k) for v, w, k in zip(values, weights, known) if v and v != (MISSING,)]
        assert _sparse_split_score(spoken, sum(weights)) == split_score(values, weights, known)


async def test_offers_only_values_that_are_alternatives():
    """"usb" and "monster" are the commonest values but not a choice (the miner paired neither with the
    other): the question offers the pair that is, else asks openly, never "usb or monster"."""
    items = _bare(6)
    cable = {"p0": ["usb"], "p1": ["monster"], "p2": ["usb"], "p3": ["monster"], "p4": ["braided"], "p5": ["coiled"]}
    step = ClarifyStep()
    mined = _vocabulary(items, {"cable": cable}, {"cable": [("braided", "coiled"), ("usb", "coiled")]})
    questions = [(await step.run(ClarifyInput([], items, [], "products", t, (), mined))).question for t in range(6)]
    assert all("monster" not in q for q in questions) and all("usb" in q and "coiled" in q for q in questions)
    none = _vocabulary(items, {"cable": cable}, {"cable": []})
    out = await ClarifyStep().run(ClarifyInput([], items, [], "products", 1, (), none))
    assert out.aspect == "cable" and not any(v in out.question for v in ("usb", "monster", "braided"))


# --- the LLM path ---------------------------------------------------------------------------

import pydantic  # noqa: E402
import pytest  # noqa: E402

from agents.steps.recommender.clarify import REPEATED_QUESTION  # noqa: E402


def test_the_model_may_only_name_an_aspect_still_open():
    items = [Item(id=str(i), title=f"Place {i}", attributes={"cuisine": c, "price_range": p, "noise": "quiet"})
             for i, (c, p) in enumerate([("thai", "cheap"), ("italian", "expensive")])]
    mined = _vocabulary(items, {"service": {"0": ["fast"], "1": ["slow"]}, "prices": {"0": ["low"]}})
    said = [Turn(index=0, role=Role.seeker, text="Somewhere quiet, please.")]
    step = ClarifyStep()
    inputs = ClarifyInput(said, items, ["cuisine"], "restaurants", 2, ("cuisine", "price_range", "noise"), mined)
    model = step.answer_model(inputs)
    # cuisine was asked; the seeker's "quiet" is a value of the noise: answered, as offline
    assert model.model_json_schema()["properties"]["aspect"]["anyOf"][0]["enum"] == ["price_range", "service"]
    assert model.model_validate({"question": "Fast or slow service?", "aspect": "service"}).aspect == "service"
    with pytest.raises(pydantic.ValidationError):
        model.model_validate({"question": "What cuisine?", "aspect": "cuisine"})
    variables = step.prompt_variables(inputs)
    assert variables["aspects"] == "price_range" and variables["review_aspects"].startswith("service")
    assert "prices" not in variables["review_aspects"]  # repeats the price_range attribute


def test_a_question_naming_a_candidate_or_asked_before_is_refused():
    items = [Item(id="k", title="Kitchen on Bridge Street II", attributes={"cuisine": "thai"})]
    dialogue = [Turn(index=0, role=Role.recommender, text="What cuisine are you after?")]
    step, inputs = ClarifyStep(), ClarifyInput(dialogue, items, ["cuisine"], "restaurants", 2)
    answer = step.answer_model(inputs)
    assert "named a candidate (Kitchen on Bridge Street II)" in step.check(
        answer(aspect=None, question="What is the atmosphere of Kitchen on Bridge Street II?"), inputs)
    assert step.check(answer(aspect=None, question="What cuisine are you after?"), inputs) == REPEATED_QUESTION
    assert step.check(answer(aspect=None, question="How lively should it be?"), inputs) is None
    assert answer.model_json_schema()["properties"]["aspect"]["type"] == "null"  # nothing left to name
    liked = Item(id="h", title="Hugo's Promise", attributes={})  # a film the person named (CRAG's links)
    named = ClarifyInput(dialogue, items, ["cuisine"], "movies", 2, named=(liked,))
    assert "you named Hugo's Promise" in step.check(
        answer(aspect=None, question="What genre do you think Hugo's Promise fits into?"), named)
    for about_one in ("What themes does the movie explore?", "What era do you think the movie is set in?",
                      "What do you think the movie's tone is?", "What is the tone of the movie?"):  # what the 1.5B asked in CRAG once refused
        assert "as if it were known" in step.check(answer(aspect=None, question=about_one), named), about_one
    for about_wishes in ("What kind of movie are you in the mood for?", "Which era should the movies be from?",
                         "What should the tone of the movie you want be?"):
        assert step.check(answer(aspect=None, question=about_wishes), named) is None, about_wishes


# --- questions people would ask ------------------------------------------------------------

def _place(i, cuisine, city, state, chef=None):
    attributes = {"cuisine": cuisine, "city": city, "state": state}
    if chef:
        attributes["chef"] = chef
    return Item(id=f"r{i}", title=f"Place {i}", attributes=attributes)


PLACES = [_place(i, c, city, state) for i, (c, city, state) in enumerate([
    ("thai", "Tucson", "AZ"), ("thai", "Phoenix", "AZ"), ("italian", "Reno", "NV"), ("italian", "Reno", "NV"),
    ("mexican", "Tucson", "AZ"), ("mexican", "Phoenix", "AZ"), ("thai", "Boise", "ID"), ("italian", "Boise", "ID")])]


async def test_an_attribute_the_seeker_named_a_value_of_is_not_asked():
    said = [Turn(index=0, role=Role.recommender, text="Hi!"),
            Turn(index=1, role=Role.seeker, text="I'm craving Thai food tonight")]
    out = await ClarifyStep().run(ClarifyInput(said, PLACES, [], "restaurants", 1, ("cuisine", "city")))
    assert out.aspect == "city"
    plural = [said[0], Turn(index=1, role=Role.seeker, text="Something with mexicans cooking")]
    out = await ClarifyStep().run(ClarifyInput(plural, PLACES, [], "restaurants", 1, ("cuisine", "city")))
    assert out.aspect == "city"  # "mexicans" names the value "mexican"


async def test_a_value_only_the_catalog_has_answers_the_attribute_too():
    said = [Turn(index=0, role=Role.recommender, text="Hi!"),
            Turn(index=1, role=Role.seeker, text="Anything Korean?")]  # no candidate is korean
    korean = _place(99, "korean", "Reno", "NV")
    out = await ClarifyStep().run(ClarifyInput(said, PLACES, [], "restaurants", 1, ("cuisine",)))
    assert out.aspect == "cuisine"  # the candidates alone do not show "korean" is a cuisine
    step = ClarifyStep(catalog_items=[*PLACES, korean])
    out = await step.run(ClarifyInput(said, PLACES, [], "restaurants", 1, ("cuisine",)))
    assert out.aspect is None


async def test_an_attribute_the_known_one_settles_is_not_asked():
    out = await ClarifyStep().run(ClarifyInput([], PLACES, ["cuisine", "city"], "restaurants", 3,
                                               ("cuisine", "city", "state")))
    assert out.aspect is None  # every city lies in one state
    moved = PLACES + [_place(9, "thai", "Boise", "AZ"), _place(10, "thai", "Reno", "ID")]
    out = await ClarifyStep().run(ClarifyInput([], moved, ["cuisine", "city"], "restaurants", 3,
                                               ("cuisine", "city", "state")))
    assert out.aspect == "state"  # here the city does not say the state


async def test_attribute_questions_offer_two_shared_values():
    out = await ClarifyStep().run(ClarifyInput([], PLACES, [], "restaurants", 1, ("cuisine",)))
    assert out.aspect == "cuisine"
    offered = [v for v in ("thai", "italian", "mexican") if v in out.question.lower()]
    assert len(offered) == 2 and "thai" in offered  # the best-ranked candidates' values first


async def test_values_no_two_candidates_share_weigh_less():
    chefs = [_place(i, item.attributes["cuisine"], "x", "y", chef=f"Chef {i}") for i, item in enumerate(PLACES)]
    out = await ClarifyStep().run(ClarifyInput([], chefs, [], "restaurants", 1, ("chef", "cuisine")))
    assert out.aspect == "cuisine"  # eight chefs split better, but no seeker asks for one before knowing it
    out = await ClarifyStep().run(ClarifyInput([], chefs, ["cuisine"], "restaurants", 2, ("chef", "cuisine")))
    assert out.aspect == "chef"  # still asked once nothing better is left
    assert "Chef" not in out.question  # and with no values to offer


async def test_after_the_open_question_it_asks_about_what_is_shown_never_by_name():
    films = [Item(id=f"f{i}", title=f"Film {i}", attributes={"genre": "drama"}) for i in range(3)]
    dialogue = []
    questions = []
    for turn in range(5):
        out = await ClarifyStep().run(ClarifyInput(dialogue, films, ["genre"], "movies", turn, ("genre",)))
        questions.append(out.question)
        dialogue = dialogue + [Turn(index=len(dialogue), role=Role.recommender, text=f"Film 0. {out.question}"),
                               Turn(index=len(dialogue) + 1, role=Role.seeker, text="ok")]
    assert questions[0] == "Is there anything else that matters to you?"
    assert all("Film" not in q and q.endswith("?") for q in questions[1:])  # a title would be a mention
    assert all(a != b for a, b in zip(questions[1:], questions[2:]))  # not the same words twice running
    out = await ClarifyStep().run(ClarifyInput(dialogue, films, ["genre"], "restaurants", 6, ("genre",)))
    assert "seen" not in out.question  # films are seen; other things are not

from agents.steps.clarify import ClarifyInput, ClarifyStep, value_entropy
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

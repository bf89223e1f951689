
from agents.base import GraphAgent
from agents.seekers.target_biased import SeekerContext, build_graph, never_name, profile_facts
from agents.steps.seeker.answer import DONT_KNOW, NOT_THAT_BUT, RESTATED, SeekerAnswerStep
from agents.steps.seeker.summarize import SummarizeReviewsStep
from environments.base import SeekerObservation
from environments.models import Role, Turn
from environments.single_target import TargetBiasedProfile

PROFILE = TargetBiasedProfile(
    target_id="i1", title="Casa Verde", attributes={"cuisine": "mexican", "price_range": "cheap",
                                                   "dietary_options": ["vegan", "gluten_free"]},
    description="", positive_reviews=("Casa Verde has amazing tacos. Friendly staff.", "Great tacos here."),
    own_review="I loved the salsa bar at Casa Verde. We went on a Tuesday.",
)


def _seeker(encoder, threshold=0.3, dont_know_rate=0.0):
    context = SeekerContext(SeekerAnswerStep(None, encoder=encoder, threshold=threshold, dont_know_rate=dont_know_rate),
                            SummarizeReviewsStep(None), own_review_sentences=3)
    return GraphAgent(Role.seeker, build_graph(), context, memory_keys=("facts", "stated"))


def _one_of(text, lines):
    """`text` is one of `lines` as the seeker typed it (its habit of capitals and full stops)."""
    return text.rstrip(".").lower() in {line.rstrip(".").lower() for line in lines}


def _obs(question, turn=1, opening=False, seed=0):
    dialogue = (Turn(index=0, role=Role.recommender, text=question, metadata={"opening": opening}),)
    return SeekerObservation(turn, dialogue, (), PROFILE, "restaurants", seed)


def test_profile_facts_cover_attributes_summary_and_own_review():
    facts = profile_facts(PROFILE, "Amazing tacos. Friendly staff.", 3)
    keys = [f.key for f in facts]
    assert "attr:cuisine=mexican" in keys and "attr:dietary_options=vegan" in keys
    review = [f.utterance.lower() for f in facts if f.key.startswith("review:")]  # own review, summary, reviews
    assert any("salsa bar" in u for u in review)  # the own review's salsa bar, in the seeker's words
    assert not any("i loved the salsa bar" in u for u in review)


async def test_answers_what_is_asked_first_then_one_or_two_more(hash_encoder):
    seeker = _seeker(hash_encoder)
    state = seeker.init_state(_obs("x"))
    reply, state = await seeker.respond(_obs("What price range are you looking for?"), state)
    assert "cheap" in reply.text.lower() and reply.metadata["has_preference"]
    assert reply.metadata["facts"][0] == "attr:price_range=cheap" and 1 <= len(reply.metadata["facts"]) <= 3
    assert reply.metadata["claims"][0] == ["price_range", "cheap", 1]
    aspects = [key.split("=")[0] for key in reply.metadata["facts"]]
    assert len(set(aspects)) == len(aspects)  # one fact per aspect in a reply
    said = list(state["stated"])
    reply, state = await seeker.respond(_obs("Any dietary options you need?"), state)
    assert not set(reply.metadata["facts"]) & set(said)  # nothing said twice
    assert state["stated"] == said + reply.metadata["facts"]


async def test_a_question_about_a_mined_aspect_is_answered_with_the_targets_value(hash_encoder):
    described = (("case", ("hard",)), ("strap", ("padded",)), ("stand", ("built",)), ("fit", ("ideal",)))
    profile = replace(PROFILE, attributes={}, described=described,
                      shared_words={w: 50 for w in "hard padded built ideal".split()})
    facts = profile_facts(profile, "", 3)
    # "built" is what reviews' "well built" leaves, "ideal" says nothing: no wish either
    assert [f.key for f in facts if f.key.startswith("mined:")] == ["mined:case=hard", "mined:strap=padded"]
    seeker = _seeker(hash_encoder)
    obs = SeekerObservation(1, (Turn(index=0, role=Role.recommender,
                                     text="When it comes to case, are you after something hard, soft, or something else?"),),
                            (), profile, "products", 0)
    reply, _ = await seeker.respond(obs, seeker.init_state(obs))
    assert reply.metadata["facts"][0] == "mined:case=hard" and "a hard case" in reply.text.lower()


async def test_a_question_it_has_no_answer_to_still_gets_something_it_wants(hash_encoder):
    seeker = _seeker(hash_encoder, threshold=0.3)
    reply, state = await seeker.respond(_obs("Do you need wheelchair parking?"), seeker.init_state(None))
    assert reply.text.startswith(NOT_THAT_BUT) and reply.metadata["has_preference"]
    assert state["stated"] == reply.metadata["facts"] and state["stated"]


async def test_questions_are_matched_by_meaning_not_by_schema_key(hash_encoder):
    # The old seeker answered any question naming an attribute key from that attribute. Now
    # only similarity counts: at an unreachable threshold even "price range" matches nothing.
    seeker = _seeker(hash_encoder, threshold=1.01)
    reply, _ = await seeker.respond(_obs("Do you have a preference for the price range?"), {})
    assert reply.text.startswith(NOT_THAT_BUT)


async def test_unsure_at_the_configured_rate(hash_encoder):
    unsure = _seeker(hash_encoder, dont_know_rate=1.0)
    reply, state = await unsure.respond(_obs("What price range are you looking for?"), {})
    assert _one_of(reply.text, DONT_KNOW) and not reply.metadata["has_preference"] and state["stated"] == []
    opening, _ = await unsure.respond(_obs("Hello, what are you looking for?", opening=True), {})
    assert opening.metadata["has_preference"]  # an open question always gets a want


async def test_same_seed_same_words_other_seed_other_words(hash_encoder):
    seeker = _seeker(hash_encoder)
    texts = {}
    for seed in range(6):
        replies = [(await seeker.respond(_obs("What are you looking for?", opening=True, seed=seed), {}))[0].text
                   for _ in range(2)]
        assert replies[0] == replies[1]
        texts[seed] = replies[0]
    assert len(set(texts.values())) > 1


async def test_opening_question_always_gets_a_preference(hash_encoder):
    seeker = _seeker(hash_encoder, threshold=0.99)
    reply, _ = await seeker.respond(_obs("Hello, what are you looking for?", opening=True), {})
    assert reply.metadata["has_preference"]


async def test_never_names_the_target(hash_encoder):
    seeker = _seeker(hash_encoder, threshold=0.0)
    state = {}
    for question in ["Tell me about the salsa?", "Anything about tacos?", "What did you love?", "More?"] * 3:
        reply, state = await seeker.respond(_obs(question), state)
        assert "casa verde" not in reply.text.lower()
    assert never_name("Take me to CASA VERDE now", "Casa Verde") == "Take me to that one now"


async def test_a_question_about_something_already_said_is_answered_as_such(hash_encoder):
    seeker = _seeker(hash_encoder)
    _, state = await seeker.respond(_obs("What price range are you looking for?"), {})
    reply, _ = await seeker.respond(_obs("What price range are you looking for?"), state)
    assert reply.text.startswith(RESTATED) and reply.metadata["facts"][0] == "attr:price_range=cheap"
    assert reply.metadata["claims"][0][:2] == ["price_range", "cheap"]  # that again first


def _asked_after(turns, question, seed=0):
    """An observation whose dialogue holds `turns` (role, text) and then the question."""
    dialogue = tuple(Turn(index=i, role=role, text=text) for i, (role, text) in enumerate(turns))
    dialogue += (Turn(index=len(turns), role=Role.recommender, text=question),)
    return SeekerObservation(len(dialogue) // 2, dialogue, (), PROFILE, "restaurants", seed)


async def test_with_everything_said_it_repeats_what_is_asked_then_leaves_rather_than_stall(hash_encoder):
    from agents.steps.seeker.answer import GIVING_UP, NOTHING_LEFT, RESTATED

    seeker = _seeker(hash_encoder)
    state = {}
    for _ in range(8):  # ask until every fact is said
        _, state = await seeker.respond(_obs("Tell me more?"), state)
    assert len(set(state["stated"])) == len(state["facts"])
    reply, _ = await seeker.respond(_obs("What price range are you looking for?"), state)
    assert reply.text.startswith(RESTATED) and "cheap" in reply.text.lower() and not reply.quit
    assert reply.metadata["facts"] == ["attr:price_range=cheap"]
    reply, _ = await seeker.respond(_obs("Do you need wheelchair parking?"), state)
    assert _one_of(reply.text, NOTHING_LEFT) and not reply.quit  # the first time it says so and stays
    before = [(Role.seeker, reply.text), (Role.recommender, "Anything else?"), (Role.seeker, "Hmm.")]
    reply, _ = await seeker.respond(_asked_after(before, "Do you need wheelchair parking?"), state)
    assert reply.quit and _one_of(reply.text, GIVING_UP)


# --- talking like people: reactions, questions, liked items, the product kind -----------------

from dataclasses import replace  # noqa: E402

from agents.seekers.target_biased import WANT_FORMS, TalkRates, talk_move  # noqa: E402
from environments.base import ItemCard  # noqa: E402

SHOWN = (ItemCard("i9", "Golden Wok", "", {"cuisine": "chinese"}), ItemCard("i1", "Casa Verde", "", {}),
         ItemCard("i7", "B000068NZG", "", {}))


def _shown_obs(profile=PROFILE, seed=0, shown=SHOWN):
    dialogue = (Turn(index=0, role=Role.recommender, text="Anything else?", items_shown=[c.id for c in shown]),)
    return SeekerObservation(1, dialogue, shown, profile, "restaurants", seed)


def _moves(profile=PROFILE, rates=TalkRates(), shown=SHOWN, stated=()):
    facts = profile_facts(profile, "", 3)
    moves = [talk_move(_shown_obs(profile, seed, shown), facts, list(stated), [], rates) for seed in range(200)]
    return [m.reply if m is not None else None for m in moves]


def test_reacts_asks_and_names_at_about_the_configured_rates():
    profile = replace(PROFILE, liked=("The Honest Fox",))
    moves = [m for m in _moves(profile, TalkRates(react=0.3, ask=0.2, name=0.15)) if m is not None]
    kinds = [m.metadata["move"] for m in moves]
    assert {"like", "pass", "ask", "name"} <= set(kinds)
    assert 0.4 < len(moves) / 200 < 0.9  # the rest of the turns answer the question
    assert all(m.metadata["about"] or m.metadata["move"] == "name" for m in moves)


def test_never_names_its_target_and_gives_no_feedback_on_it():
    for move in filter(None, _moves()):
        assert "Casa Verde" not in move.text
        if move.metadata["move"] == "like":
            assert move.metadata["about"] == ["i1"] and not move.feedback and "second one" in move.text


def test_passing_on_an_item_gives_a_reason_and_dislike_feedback():
    passes = [m for m in _moves() if m is not None and m.metadata["move"] == "pass"]
    assert passes
    for move in passes:
        assert move.feedback == {"i9": "dislike"}
        assert move.metadata["facts"] and move.metadata["claims"]  # what it wants instead
    # Golden Wok is chinese, the target mexican: the reason contradicts what is shown
    assert any("mexican" in m.text.lower() for m in passes)


def test_product_codes_are_never_said_and_liked_codes_never_named():
    profile = replace(PROFILE, liked=("B00ABCDE12",))
    codes = (ItemCard("i7", "B000068NZG", "", {}),)
    for move in filter(None, _moves(profile, TalkRates(react=0.4, ask=0.4, name=0.2), shown=codes)):
        assert "B000068NZG" not in move.text and "B00ABCDE12" not in move.text


def test_on_a_real_catalog_the_first_answer_names_the_kind_of_product():
    profile = replace(PROFILE, kind="tuner", shared_words={"tacos": 40, "amazing": 40, "staff": 40, "friendly": 40})
    facts = profile_facts(profile, "", 3)
    kind = next(f for f in facts if f.key == "kind")
    assert kind.utterance.endswith(("a tuner.", "a tuner, please.")) and kind.phrase == "a tuner"
    review = [f for f in facts if f.key.startswith("review:")]
    assert all("salsa" not in f.utterance.lower() for f in review)  # not a shared word: never said


def test_a_catalog_value_that_names_nothing_or_the_kind_is_not_said_again():
    attributes = {"division": "General", "department": "Dresses", "class": "Dresses", "size": "General Petite"}
    profile = replace(PROFILE, attributes=attributes, kind="dresses", shared_words={})
    facts = profile_facts(profile, "", 3)
    keys = [f.key for f in facts if f.key.startswith("attr:")]
    assert keys == ["attr:size=General Petite"]  # "General" says nothing; "Dresses" is the kind, said once
    kind = next(f for f in facts if f.key == "kind")
    assert kind.claim == ("department", "Dresses", 1) and kind.phrase == "some dresses"


def test_the_steps_of_a_listings_path_above_the_kind_are_not_said():
    """"I want to get some pants. I'm thinking Bottoms." read as a store's labels."""
    attributes = {"categories": ["General Petite", "Bottoms", "Pants"], "division": "General Petite",
                  "department": "Bottoms", "class": "Pants", "fabric": "Denim"}
    facts = profile_facts(replace(PROFILE, attributes=attributes, kind="pants", shared_words={}), "", 3)
    assert [f.key for f in facts if f.key.startswith("attr:")] == ["attr:fabric=Denim"]
    kind = next(f for f in facts if f.key == "kind")
    assert kind.claim is not None and kind.claim[1] == "Pants" and kind.phrase == "some pants"


def test_after_asking_it_sometimes_takes_in_the_answer():
    facts = profile_facts(PROFILE, "", 3)

    def acknowledgements(answer: str) -> list:
        moves = []
        for seed in range(100):
            dialogue = (Turn(index=0, role=Role.seeker, text="What's Golden Wok like?", metadata={"move": "ask"}),
                        Turn(index=1, role=Role.recommender, text=answer, items_shown=[c.id for c in SHOWN]))
            moves.append(talk_move(SeekerObservation(2, dialogue, SHOWN, PROFILE, "restaurants", seed), facts, [],
                                   [], TalkRates()))
        return [m.reply for m in moves if m is not None and m.reply.metadata["move"] == "acknowledge"]

    acks = acknowledgements("Reviews call it cosy.")
    assert 25 <= len(acks) <= 75 and all(len(m.text.split()) <= 4 and not m.feedback for m in acks)
    assert not acknowledgements("Reviews call it cosy. Anything else?")  # "Fair enough." would answer nothing


def test_a_move_answers_the_attribute_asked_and_none_leaves_it_unanswered():
    profile = replace(PROFILE, liked=("The Honest Fox",))
    facts = profile_facts(profile, "", 3)
    price = next(f for f in facts if f.key == "attr:price_range=cheap")
    asked, free = [], []
    for seed in range(200):
        obs = _shown_obs(profile, seed)
        rates = TalkRates(react=0.3, ask=0.2, name=0.3)
        asked.append(talk_move(obs, facts, [], [], rates, asked=price))
        free.append(talk_move(obs, facts, [], [], rates))
    moves = [m.reply for m in asked if m is not None]
    assert {m.metadata["move"] for m in moves} >= {"pass", "ask"} and "name" not in {m.metadata["move"] for m in moves}
    for move in moves:
        if move.metadata["move"] in ("pass", "ask"):
            assert move.metadata["facts"] == [price.key] and price.phrase in move.text.lower()
    assert any(m is not None and m.reply.metadata["move"] == "name" for m in free)  # without a question, it may


def test_a_shown_item_with_the_value_asked_about_is_not_turned_down_for_lacking_it():
    facts = profile_facts(PROFILE, "", 3)
    mexican = next(f for f in facts if f.claim is not None and f.claim[:2] == ("cuisine", "mexican"))
    shown = (ItemCard("i9", "Golden Wok", "", {"cuisine": "mexican"}),) + SHOWN[1:]
    for seed in range(100):
        move = talk_move(_shown_obs(PROFILE, seed, shown), facts, [], [], TalkRates(react=0.9, ask=0.0), asked=mexican)
        assert move is None or move.reply.metadata["move"] != "pass" or "i9" not in move.reply.metadata["about"]


def test_a_language_model_sees_people_s_wordings_only_from_a_corpus_of_its_own_kind_of_item():
    from types import SimpleNamespace

    from agents.seekers.decisions import load_bank
    from agents.seekers.target_biased import people_examples

    bank = load_bank("auto")
    films = people_examples(bank, SimpleNamespace(item_noun="movies", episode_seed=3, dialogue=[1, 2]))
    assert len(films) == 3 and all("{" not in text for text in films)
    assert people_examples(bank, SimpleNamespace(item_noun="restaurants", episode_seed=3, dialogue=[1, 2])) == []
    assert people_examples(None, SimpleNamespace(item_noun="movies", episode_seed=3, dialogue=[])) == []


def test_a_liked_film_already_said_is_not_named_again():
    from agents.seekers.target_biased import unsaid_liked
    from environments.models import Turn

    opening = [Turn(index=0, role="seeker", text="Mastermind  (1976)", metadata={"opening": True}),
               Turn(index=1, role="recommender", text="Have you seen Heat (1995)?")]
    liked = ["Mastermind  (1976)", "Heat (1995)", "Alien (1979)"]
    assert unsaid_liked(liked, [], opening) == ["Heat (1995)", "Alien (1979)"]  # the recommender's words don't count
    assert unsaid_liked(liked, ["liked:Heat (1995)"], opening) == ["Alien (1979)"]


def test_a_kind_reviewers_never_count_is_asked_for_without_an_article():
    profile = replace(PROFILE, kind="outerwear", kind_countable=False, shared_words={"tacos": 40})
    kind = next(f for f in profile_facts(profile, "", 3) if f.key == "kind")
    assert kind.phrase == "some outerwear" and "some outerwear" in kind.utterance


# --- pointing at what is shown as people do; wishes in people's words ---------------------------

CODES = (ItemCard("i7", "B000068NZG", "", {}), ItemCard("i1", "B00TARGET1", "", {}), ItemCard("i8", "B000068O1N", "",
                                                                                                {}))


def test_items_without_a_name_are_turned_down_together_never_by_place():
    from simulators.validity.language import points_by_position

    profile = replace(PROFILE, title="B00TARGET1")
    moves = [m for m in _moves(profile, TalkRates(react=0.5, ask=0.3), shown=CODES) if m is not None]
    passes = [m for m in moves if m.metadata["move"] == "pass"]
    asks = [m for m in moves if m.metadata["move"] == "ask"]
    assert passes and asks
    for move in passes:
        assert move.feedback == {"i7": "dislike", "i8": "dislike"}  # every other item on screen; never the target
        assert not points_by_position(move.text)
    assert all(m.metadata["about"] == ["i7", "i8"] and not points_by_position(m.text) for m in asks)
    likes = [m for m in moves if m.metadata["move"] == "like"]
    assert likes and all("second one" in m.text for m in likes)  # its target, singled out by place


def test_an_item_with_a_name_is_pointed_at_alone():
    shown = (ItemCard("i9", "Golden Wok", "", {"cuisine": "chinese"}), ItemCard("i1", "Casa Verde", "", {}),
             ItemCard("i8", "B000068O1N", "", {}))
    moves = [m for m in _moves(PROFILE, TalkRates(react=0.5, ask=0.4), shown=shown) if m is not None]
    others = [m for m in moves if m.metadata["move"] in ("pass", "ask")]
    assert others and all(m.metadata["about"] == ["i9"] for m in others)
    assert all("Golden Wok" in m.text or "first one" in m.text for m in others)


def test_the_kind_of_product_is_never_the_reason_to_turn_down_what_is_shown():
    profile = replace(PROFILE, title="B00TARGET1", kind="stand", shared_words={"tacos": 40})
    facts = profile_facts(profile, "", 3)
    kind = next(f for f in facts if f.key == "kind")
    for seed in range(100):
        move = talk_move(_shown_obs(profile, seed, CODES), facts, [], [], TalkRates(react=0.9, ask=0.0), asked=kind)
        assert move is None or kind.key not in move.reply.metadata["facts"]


def test_outside_grounded_episodes_a_described_thing_is_said_in_people_s_wording():
    from agents.seekers.decisions import load_answer_bank

    bank = load_answer_bank("sgd")
    profile = replace(PROFILE, described=(("fabric", ("soft",)),))
    own = next(f for f in profile_facts(profile, "", 3) if f.key == "mined:fabric=soft")
    people = next(f for f in profile_facts(profile, "", 3, wishes=bank) if f.key == "mined:fabric=soft")
    assert own.utterance in {form.format(p="a soft fabric", P="A soft fabric") for form in WANT_FORMS}
    assert people.utterance.lower().replace("a soft fabric", "{value}") in {w.text.lower() for w in bank.wordings}
    assert people.phrase == own.phrase == "a soft fabric"


def test_asked_which_category_it_names_the_kind_and_asked_openly_it_may_not():
    from agents.seekers.target_biased import with_kind
    from agents.steps.seeker.answer import Fact, SeekerAnswer

    kind = Fact("kind", "kind: stand", "I need a stand.", "kind", phrase="a stand")
    vague = SeekerAnswer(answer="Just a reasonable price.", has_preference=True, fact_key="attr:price=low")
    asked = [with_kind(vague, [kind], [], True, seed, "Hello, what category of products are you looking for?")
             for seed in range(40)]
    assert all("a stand" in a.answer and a.fact_keys[0] == "kind" for a in asked)
    opened = [with_kind(vague, [kind], [], True, seed, "Hello, how can I help?") for seed in range(40)]
    assert 8 <= sum(a.answer == vague.answer for a in opened) <= 32  # starts vaguer about half the time


def test_a_taste_is_said_as_people_say_it_and_matched_as_the_kind_liked():
    from agents.seekers.target_biased import taste_fact

    assert "kids movies" in taste_fact("kids", "x", "movies").utterance  # not "Really like kids"
    assert "comedies" in taste_fact("comedies", "x", "movies").utterance.lower()
    assert "comedies movies" not in taste_fact("comedies", "x", "movies").utterance
    assert taste_fact("funny", "x", "movies").match_text.startswith("genre:")

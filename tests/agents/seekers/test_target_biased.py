
from agents.seekers.target_biased import SeekerContext, build_graph, never_name, profile_facts
from agents.base import GraphAgent
from agents.steps.seeker_answer import SeekerAnswerStep
from agents.steps.summarize import SummarizeReviewsStep
from environments.base import SeekerObservation
from environments.models import Role, Turn
from environments.single_target import TargetBiasedProfile

PROFILE = TargetBiasedProfile(
    target_id="i1", title="Casa Verde", attributes={"cuisine": "mexican", "price_range": "cheap",
                                                   "dietary_options": ["vegan", "gluten_free"]},
    description="", positive_reviews=("Casa Verde has amazing tacos. Friendly staff.", "Great tacos here."),
    own_review="I loved the salsa bar at Casa Verde. We went on a Tuesday.",
)


def _seeker(encoder, threshold=0.3):
    context = SeekerContext(SeekerAnswerStep(None, encoder=encoder, threshold=threshold),
                            SummarizeReviewsStep(None), own_review_sentences=3)
    return GraphAgent(Role.seeker, build_graph(), context, memory_keys=("facts", "stated"))


def _obs(question, turn=1, opening=False):
    dialogue = (Turn(index=0, role=Role.recommender, text=question, metadata={"opening": opening}),)
    return SeekerObservation(turn, dialogue, (), PROFILE, "restaurants", 0)


def test_profile_facts_cover_attributes_summary_and_own_review():
    facts = profile_facts(PROFILE, "Amazing tacos. Friendly staff.", 3)
    keys = [f.key for f in facts]
    assert "attr:cuisine=mexican" in keys and "attr:dietary_options=vegan" in keys
    review = [f.utterance.lower() for f in facts if f.key.startswith("review:")]  # own review, summary, reviews
    assert any("salsa bar" in u for u in review)  # the own review's salsa bar, in the seeker's words
    assert not any("i loved the salsa bar" in u for u in review)


async def test_answers_what_is_asked_one_preference_at_a_time(hash_encoder):
    seeker = _seeker(hash_encoder)
    state = seeker.init_state(_obs("x"))
    reply, state = await seeker.respond(_obs("What price range are you looking for?"), state)
    assert "cheap" in reply.text and reply.metadata["has_preference"]
    assert state["stated"] == ["attr:price_range=cheap"]
    reply, state = await seeker.respond(_obs("Any dietary options you need?"), state)
    assert ("vegan" in reply.text) != ("gluten free" in reply.text)  # exactly one of the two
    reply2, state = await seeker.respond(_obs("Any dietary options you need?"), state)
    assert reply2.text != reply.text and len(state["stated"]) == 3  # the other value, not a repeat


async def test_says_no_preference_when_profile_has_none(hash_encoder):
    seeker = _seeker(hash_encoder, threshold=0.3)
    reply, state = await seeker.respond(_obs("Do you need wheelchair parking?"), seeker.init_state(None))
    assert not reply.metadata["has_preference"] and state["stated"] == []


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


async def test_a_question_naming_an_aspect_is_answered_from_that_attribute(hash_encoder):
    seeker = _seeker(hash_encoder, threshold=0.99)  # embeddings alone would say "no preference"
    reply, state = await seeker.respond(_obs("Do you have a preference for the price range?"), {})
    assert reply.metadata["has_preference"] and "cheap" in reply.text
    reply, state = await seeker.respond(_obs("And the price range?"), state)
    assert not reply.metadata["has_preference"]  # already said; nothing else about price

"""Grounded episodes: one real conversation per episode, the person's opening and context,
their accepted item as the target, withheld from the recommender's view."""

from pathlib import Path

import pytest

from crsim_testing import import_redial_fixture
from environments.base import Recommendation, SeekerReply
from environments.check import check_environment
from environments.errors import CrsimError
from environments.models import Episode, Turn
from environments.multi_target import PepperProfile
from environments.single_target import GroundedSetup, TargetBiasedProfile, build_grounded
from environments.single_target.grounded import person_words


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return import_redial_fixture(tmp_path_factory, n_train=12, n_test=6)


def _conversations(corpus: Path, split: str) -> list[Episode]:
    lines = (corpus / "dialogues.jsonl").read_text().splitlines()
    return [e for e in map(Episode.model_validate_json, lines) if e.profile["split"] == split and e.targets]


def test_each_episode_is_one_real_conversation(corpus):
    setup = build_grounded(str(corpus), split="test_data")
    real = _conversations(corpus, "test_data")
    assert [c.conversation_id for c in setup.conversations] == [e.id for e in real]
    assert setup.roles == ("recommender", "seeker")
    for index, episode in enumerate(real):
        env = setup.new_episode()
        first = env.reset(seed=index, options={"episode_index": index})
        person_first = next(t.text for t in episode.turns if t.role == "seeker")
        assert [t.text for t in first["recommender"].dialogue][-1] == person_first
        profile = first["seeker"].profile
        assert isinstance(profile, TargetBiasedProfile) and profile.target_id == episode.targets[0]
        before = [t for t in episode.turns[: next(i for i, t in enumerate(episode.turns) if t.items_shown)]]
        assert profile.person.utterances == tuple(t.text for t in before if t.role == "seeker")
        assert set(profile.person.named) == {m for t in before for m in t.metadata.get("mentioned", [])}
        assert env.evaluation().targets == [episode.targets[0]]
        assert env.evaluation().profile["conversation_id"] == episode.id


def test_the_target_like_of_the_person_is_withheld_from_the_recommender(corpus):
    setup = build_grounded(str(corpus), split="test_data")
    for conversation in setup.conversations:
        liked_by_person = [s.item_id for u in setup.recommender_catalog.users if u.user_id == conversation.user_id
                           for s in u.seen]
        assert conversation.target not in liked_by_person
    full = {(u.user_id, s.item_id) for u in setup.catalog.users for s in u.seen}
    assert any((c.user_id, c.target) in full for c in setup.conversations)  # there was something to withhold


def test_history_gives_a_pepper_seeker_what_the_person_knew(corpus):
    catalog = build_grounded(str(corpus)).catalog
    setup = GroundedSetup(catalog, split="test_data", seeker_knows="history")
    person = GroundedSetup(catalog, split="test_data")
    # the fixture is too small for shared taste words: take every word its people said as one
    setup.taste_words = person.taste_words = frozenset(
        person_words(tuple(u for c in setup.conversations for u in (*c.person.utterances, *c.later))))
    for index, conversation in enumerate(setup.conversations):
        profile = setup.new_episode().reset(seed=0, options={"episode_index": index})["seeker"].profile
        told = person.new_episode().reset(seed=0, options={"episode_index": index})["seeker"].profile
        assert isinstance(profile, PepperProfile) and profile.conversation_id == conversation.conversation_id
        # the films the person named before the recommender did, as the default seeker knows them
        assert [s.item.id for s in profile.seen] == [i for i in conversation.known if i != conversation.target]
        # rated as their questionnaire rated them: the default seeker's liked films are the rest
        assert all(s.rating == conversation.ratings.get(s.item.id) for s in profile.seen)
        assert [s.item.title for s in profile.seen if s.rating != 1.0] == list(told.liked)
        assert profile.tastes == told.tastes
    assert any(c.known != c.person.named for c in setup.conversations)  # films named after the first suggestion too
    assert any(setup.profile_for(c).tastes for c in setup.conversations)
    assert setup.agent_catalog("seeker") is setup.recommender_catalog


def test_keeps_the_environment_contract(corpus):
    check_environment(build_grounded(str(corpus), split="test_data"), rounds=3)
    check_environment(build_grounded(str(corpus), split="test_data", seeker_knows="history"), rounds=3,
                      moves={"recommender": lambda obs: Recommendation("More?", ranked_ids=obs.candidates[:4]),
                             "seeker": lambda obs: SeekerReply("something scary")})


def test_bad_settings_are_one_line(corpus, tiny_catalog_dir):
    with pytest.raises(CrsimError, match="environment.catalog=DIR"):
        build_grounded(None)
    with pytest.raises(CrsimError, match="no conversation of split 'nope'"):
        build_grounded(str(corpus), split="nope")
    with pytest.raises(CrsimError, match="dialogues.jsonl"):
        build_grounded(str(tiny_catalog_dir))
    with pytest.raises(CrsimError, match="seeker_knows"):
        build_grounded(str(corpus), seeker_knows="everything")


def test_a_person_knows_what_they_named_not_their_targets_attributes(corpus):
    setup = build_grounded(str(corpus), split="test_data")
    assert setup.seeker_knows == "person"
    for conversation in setup.conversations:
        profile = setup.profile_for(conversation)
        assert profile.attributes == {} and profile.knowledge.facts == () and profile.description == ""
        assert profile.target_id == conversation.target
        shown_first = {i for e in _conversations(corpus, "test_data") if e.id == conversation.conversation_id
                       for t in e.turns if t.role == "recommender" for i in t.items_shown}
        assert set(conversation.known) - shown_first == set(conversation.known)  # none heard of from the recommender
        hated = [i for i in conversation.known if conversation.ratings.get(i) == 1.0]
        assert hated  # the fixture's person names a film they hated after the first suggestion
        assert set(profile.person.named) == set(conversation.known) - set(hated) - {conversation.target}


def test_transcript_gives_the_persons_later_turns_in_order_until_the_target_is_named(corpus):
    from dataclasses import replace

    from environments.single_target.grounded import before_target

    setup = GroundedSetup(build_grounded(str(corpus)).catalog, split="test_data", seeker_knows="transcript")
    real = {e.id: e for e in _conversations(corpus, "test_data")}
    for conversation in setup.conversations:
        profile = setup.profile_for(conversation)
        seeker_turns = [t.text for t in real[conversation.conversation_id].turns if t.role == "seeker" and t.text]
        assert profile.turns == tuple(seeker_turns[1:1 + conversation.unprompted])
        assert setup.profile_for(replace(conversation, unprompted=None)).turns == tuple(seeker_turns[1:])
    # the person's turns before the recommender (or the person) first names the target
    turns = [("seeker", "hi, something like Alien?", [], []), ("recommender", "What do you like?", [], []),
             ("seeker", "scary ones", [], []), ("recommender", "Try Heat", ["heat"], []),
             ("seeker", "seen it", [], []), ("recommender", "Or Us", ["us"], []), ("seeker", "Us it is!", [], ["us"])]
    episode = Episode(id="c", index=0, config_hash="t", seed=0, environment="redial", termination="max_turns",
                      turns=[Turn(index=i, role=r, text=x, items_shown=s, metadata={"mentioned": m} if m else {})
                             for i, (r, x, s, m) in enumerate(turns)])
    assert before_target(episode, "us", 0) == 2 and before_target(episode, "heat", 0) == 1
    assert before_target(episode, "alien", 0) == 3  # never named after the opening: all of them


def test_taste_words_are_what_people_put_before_the_item_noun():
    from environments.single_target.grounded import GroundedConversation, shared_taste_words
    from environments.single_target.profile import PersonContext

    said = [("I like scary movies lol", "okay"), ("Any scary movies? haha", "lol"), ("Good movies please", "okay"),
            ("Got any disney movies", "lol okay"), ("I want a scary movie", "")] + [("hi", "")] * 20
    conversations = [GroundedConversation(str(n), "t", (), PersonContext(str(n), texts, ()), None, {})
                     for n, texts in enumerate(said)]
    assert shared_taste_words(conversations, "movies") == frozenset({"scary"})  # "disney": one person's; no praise

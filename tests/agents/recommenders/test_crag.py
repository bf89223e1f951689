"""The CRAG recommender and its variants (offline), on the hand-listed films with genre-clustered likes."""

from __future__ import annotations

import asyncio
from pathlib import Path

import numpy as np
import pytest
from crsim_testing import HashEncoder, make_movie_catalog, make_tiny_catalog

from agents.base import seeker_from_function
from agents.recommenders.crag import build
from agents.steps.crag.steps import ExtractMentionsStep
from environments.base import RecommenderObservation, SeekerReply
from environments.errors import CrsimError
from environments.models import Turn

CONF = Path(__file__).resolve().parents[3] / "conf"
VARIANTS = {  # name: (k, retriever, reflect, generate, rerank)
    "crag": (20, "ease", True, True, True), "crag_nr2": (20, "ease", True, True, False),
    "crag_nr12": (20, "ease", False, True, False), "zero_shot": (0, "ease", False, True, False),
    "naive_rag": (20, "content", False, True, False), "ease": (20, "ease", False, False, False),
}


@pytest.fixture(scope="module")
def catalog():
    return make_movie_catalog()


@pytest.fixture(scope="module")
def agents(catalog, tmp_path_factory):
    """Every variant composed from its conf/recommender file, as `crsim run recommender=NAME` would."""
    from hydra import compose, initialize_config_dir
    from hydra.utils import instantiate

    cache = tmp_path_factory.mktemp("crag-cache")
    built = {}
    for name in VARIANTS:
        with initialize_config_dir(config_dir=str(CONF), version_base="1.3"):
            cfg = compose("config", overrides=[f"recommender={name}", f"cache_dir={cache}"])
        built[name] = instantiate(cfg.recommender, catalog=catalog, encoder=HashEncoder(), _convert_="partial")
    return built


def observe(catalog, *texts: str, candidates=None, feedback=None) -> RecommenderObservation:
    turns = [Turn(index=i, role="seeker" if i % 2 == 0 else "recommender", text=t,
                  feedback=(feedback or {}) if i == len(texts) - 1 else {}) for i, t in enumerate(texts)]
    return RecommenderObservation(turn=len(texts), dialogue=turns, shown=(), item_noun="movies", episode_seed=0,
                                  candidates=list(candidates if candidates is not None else catalog.item_ids))


def respond(agent, observation, state=None):
    return asyncio.run(agent.respond(observation, state if state is not None else agent.init_state(observation)))


def test_variant_configs_set_the_paper_switches(agents):
    for name, (k, retriever, reflect, generate, rerank) in VARIANTS.items():
        settings = agents[name].context.settings
        assert (settings.k, settings.reflect, settings.generate, settings.rerank) == (k, reflect, generate, rerank), name
        assert name == "zero_shot" or settings.retriever == retriever
    assert agents["ease"].context.relevance is None and agents["naive_rag"].context.content is not None


def test_each_variant_uses_its_reflections(agents, catalog):
    obs = observe(catalog, "I loved The Conjuring and Insidious, something scary please")
    moves = {name: respond(agents[name], obs)[0] for name in ("crag", "crag_nr2", "crag_nr12", "zero_shot")}
    meta = {name: move.metadata for name, move in moves.items()}
    ids = {i.title: i.id for i in catalog.items}
    assert set(meta["crag"]["positives"]) == {ids["The Conjuring (2013)"], ids["Insidious (2010)"]}
    retrieved = meta["crag"]["retrieved"]
    assert len(retrieved) == 20 and retrieved == meta["crag_nr2"]["retrieved"] == meta["crag_nr12"]["retrieved"]
    assert meta["crag_nr12"]["kept"] == retrieved  # no reflection: everything retrieved goes into the prompt
    assert set(meta["crag"]["kept"]) < set(retrieved)  # reflection dropped some
    assert meta["zero_shot"]["retrieved"] == [] and meta["zero_shot"]["kept"] == []
    assert list(moves["crag_nr2"].ranked_ids) == meta["crag_nr2"]["generated"]  # no rerank
    assert sorted(moves["crag"].ranked_ids) == sorted(meta["crag"]["generated"])  # rerank permutes
    assert len(moves["crag"].ranked_ids) == 20


def test_mentioned_items_are_never_recommended_and_negatives_do_not_feed_retrieval(agents, catalog):
    obs = observe(catalog, "I loved The Conjuring. I hated Titanic and The Notebook was awful")
    ids = {i.title: i.id for i in catalog.items}
    for name in ("crag", "zero_shot", "naive_rag"):
        move, _ = respond(agents[name], obs)
        assert not {ids["The Conjuring (2013)"], ids["Titanic (1997)"], ids["The Notebook (2004)"]} & set(move.ranked_ids)
        assert move.metadata["positives"] == [ids["The Conjuring (2013)"]]
    move, _ = respond(agents["ease"], obs)
    mentioned = [catalog.item_index[ids[t]] for t in ("The Conjuring (2013)", "Titanic (1997)")]
    assert np.all(np.isneginf(move.scores[mentioned]))
    ease = agents["ease"].context.ease
    expected = ease.scores([catalog.item_index[ids["The Conjuring (2013)"]]])
    expected[mentioned + [catalog.item_index[ids["The Notebook (2004)"]]]] = -np.inf
    assert int(np.argmax(move.scores)) == int(np.argmax(expected))


def test_without_mentions_crag_first_guesses_liked_items(agents, catalog):
    move, _ = respond(agents["crag"], observe(catalog, "Something really scary for tonight, please"))
    assert move.metadata["inferred"] is True and move.metadata["positives"] and move.metadata["retrieved"]
    move, _ = respond(agents["ease"], observe(catalog, "Something really scary for tonight, please"))
    assert move.metadata["positives"] == [] and np.isfinite(move.scores).all()  # popularity only


def test_only_the_observations_candidates_are_ranked(agents, catalog):
    allowed = catalog.item_ids[::3]
    move, _ = respond(agents["crag"], observe(catalog, "I loved The Conjuring", candidates=allowed))
    assert set(move.ranked_ids) <= set(allowed) and move.ranked_ids
    move, _ = respond(agents["ease"], observe(catalog, "I loved The Conjuring", candidates=allowed))
    assert move.scores.shape == (len(allowed),)


def test_feedback_on_shown_items_counts_as_a_mention(agents, catalog):
    liked = catalog.item_ids[catalog.item_index[next(i.id for i in catalog.items if i.title == "Elf (2003)")]]
    move, _ = respond(agents["crag"], observe(catalog, "hi", "Here are some", "ok", feedback={liked: "like"}))
    assert move.metadata["positives"] == [liked] and liked not in move.ranked_ids


def test_each_turn_is_linked_once_per_episode(agents, catalog, monkeypatch):
    calls = []
    original = ExtractMentionsStep.offline
    monkeypatch.setattr(ExtractMentionsStep, "offline", lambda self, inputs: calls.append(inputs.text) or
                        original(self, inputs))
    first = observe(catalog, "I loved The Conjuring")
    _, state = respond(agents["crag"], first)
    second = observe(catalog, "I loved The Conjuring", "What else?", "I also liked Insidious")
    move, _ = respond(agents["crag"], second, state)
    assert calls == ["I loved The Conjuring", "What else?", "I also liked Insidious"]
    assert len(move.metadata["positives"]) == 2


def test_offline_moves_are_deterministic(catalog, tmp_path):
    obs = observe(catalog, "I loved The Conjuring and Insidious, something scary please")
    moves = [respond(build(catalog, encoder=HashEncoder(), cache_dir=str(tmp_path)), obs)[0] for _ in range(2)]
    assert moves[0].ranked_ids == moves[1].ranked_ids and moves[0].metadata == moves[1].metadata


@pytest.mark.parametrize(("settings", "message"), [({"k": -1}, "k must be"), ({"prompt": "other"}, "prompt"),
                                                    ({"generate": False}, "generate=false")])
def test_bad_settings_are_one_clear_error(catalog, settings, message):
    with pytest.raises(CrsimError, match=message):
        build(catalog, encoder=HashEncoder(), **settings)


def test_a_catalog_without_positive_signals_cannot_fit_ease():
    with pytest.raises(CrsimError, match="no positive interactions"):
        build(make_movie_catalog(interactions=False), encoder=HashEncoder())


def test_crag_runs_an_interactive_single_target_episode(tmp_path):
    from environments.single_target import SingleTargetSetup
    from simulators.engine.episode import run_episode

    setup = SingleTargetSetup(make_tiny_catalog(), target_pool_size=5)  # EASE from users' liked history
    recommender = build(setup.recommender_catalog, encoder=HashEncoder(), cache_dir=str(tmp_path))
    seeker = seeker_from_function(lambda obs: SeekerReply(text="Something cheap and thai, like Place 04"))
    outcome = asyncio.run(run_episode(setup, {"recommender": recommender, "seeker": seeker}, index=0, run_seed=0,
                                      max_turns=2, config_hash="test"))
    episode = outcome.episode
    assert episode.error is None and len(episode.evaluations) == 2
    moves = [t for t in episode.turns if t.role == "recommender" and not t.metadata.get("opening")]
    assert moves[-1].metadata["positives"] == ["i04"] and moves[-1].text  # linked, and a question was asked


def test_the_clarifying_question_crag_asked_is_not_read_for_mentions():
    from agents.recommenders.crag.mentions import own_words
    from environments.models import Role, Turn

    asked = "Any favourite genre? Comedy, action?"
    turn = Turn(index=2, role=Role.recommender, text=f"Have you seen Heat? {asked}", metadata={"asked": asked})
    assert own_words(turn).strip() == "Have you seen Heat?"  # the film it names is still read
    person = Turn(index=3, role=Role.recommender, text=f"Have you seen Heat? {asked}")  # a person's turn: all of it
    assert own_words(person) == person.text
    seeker = Turn(index=4, role=Role.seeker, text="Comedy, action?", metadata={"asked": "Comedy, action?"})
    assert own_words(seeker) == seeker.text

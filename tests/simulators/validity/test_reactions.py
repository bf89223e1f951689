"""Reactions with the real recommender held fixed: pairs, accuracy and kappa by hand."""

from pathlib import Path

import pytest

from agents.base import seeker_from_function
from crsim_testing import write_redial_fixture
from environments.base import SeekerReply
from environments.datasets.redial import RedialOptions, import_redial
from environments.models import Episode
from environments.single_target import build_grounded
from simulators.validity.reactions import Reaction, compare_reactions, reaction_figures, real_reactions


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    raw = write_redial_fixture(tmp_path_factory.mktemp("raw"), n_train=10, n_test=6)
    out = tmp_path_factory.mktemp("redial") / "catalog"
    import_redial([raw / "train_data.jsonl", raw / "test_data.jsonl"], out, RedialOptions())
    return out


def _episodes(corpus: Path) -> list[Episode]:
    return [Episode.model_validate_json(line) for line in (corpus / "dialogues.jsonl").read_text().splitlines()]


def test_figures_by_hand():
    pairs = [Reaction("c1", "a", "like", "like"), Reaction("c1", "b", "dislike", "like"),
             Reaction("c2", "c", "like", "like"), Reaction("c2", "d", "like", "none")]
    figures = reaction_figures(pairs, n_resamples=100)
    assert figures.accuracy[0] == 2 / 4 and figures.pairs == 4 and figures.conversations == 2
    # confusion over (like, dislike, none): real like->like 2, like->none 1, dislike->like 1
    # p_o = 2/4; p_e = (3/4 * 3/4) [like] + (1/4 * 0) [dislike] + (0 * 1/4) [none] = 9/16; kappa = (1/2 - 9/16) / (1 - 9/16)
    assert abs(figures.kappa[0] - (0.5 - 9 / 16) / (1 - 9 / 16)) < 1e-12
    assert figures.simulated_share == {"like": 0.75, "dislike": 0.0, "none": 0.25}


def test_a_seeker_that_likes_everything_on_screen_matches_every_real_like(corpus):
    setup = build_grounded(str(corpus), split="test_data")
    shown_to_it: list[tuple[str, ...]] = []

    def likes_all(observation):
        shown_to_it.append(tuple(card.id for card in observation.shown))
        return SeekerReply("I like those", feedback={card.id: "like" for card in observation.shown})

    episodes = _episodes(corpus)
    pairs = compare_reactions(setup, episodes, seeker_from_function(likes_all))
    real = [label for e in episodes if e.id in {c.conversation_id for c in setup.conversations}
            for label in real_reactions(e).values()]
    assert len(pairs) == len(real) and pairs
    recommended = {i for e in episodes for t in e.turns if t.role == "recommender" for i in t.items_shown}
    assert all(set(shown) <= recommended for shown in shown_to_it)  # only the real recommender's items
    assert all(pair.simulated == "like" for pair in pairs)  # every item the person reacted to was shown to it
    assert reaction_figures(pairs).accuracy[0] == sum(p.real == "like" for p in pairs) / len(pairs)

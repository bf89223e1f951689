"""Reactions with the real recommender held fixed: pairs, accuracy and kappa by hand."""

from pathlib import Path

import pytest

from agents.base import seeker_from_function
from crsim_testing import import_redial_fixture
from environments.base import SeekerReply
from environments.models import Episode
from environments.single_target import build_grounded
from simulators.validity.reactions import Reaction, compare_reactions, reaction_figures, real_reactions


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return import_redial_fixture(tmp_path_factory, n_train=10, n_test=6)


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


def test_seen_and_without_target_kappas_by_hand():
    pairs = [Reaction("c1", "a", "like", "like", True, "unseen", "unseen"),
             Reaction("c1", "b", "dislike", "dislike", False, "seen", "seen"),
             Reaction("c2", "c", "like", "dislike", False, "seen", "unseen"),
             Reaction("c2", "d", "like", "like", False, "none", "seen")]
    figures = reaction_figures(pairs, n_resamples=50)
    assert figures.seen_pairs == 3  # d: the person recorded nothing
    # seen: real (unseen, seen, seen) vs simulated (unseen, seen, unseen): p_o 2/3, p_e 1/3*2/3 + 2/3*1/3 = 4/9
    assert abs(figures.seen_kappa[0] - (2 / 3 - 4 / 9) / (1 - 4 / 9)) < 1e-12
    # without the target: (dislike, like, like) vs (dislike, dislike, like): p_o 2/3, p_e 1/3*2/3 + 2/3*1/3
    assert abs(figures.kappa_without_targets[0] - (2 / 3 - 4 / 9) / (1 - 4 / 9)) < 1e-12


def test_decisions_count_for_every_item_shown_and_the_replay_goes_on_after_an_accept(corpus):
    setup = build_grounded(str(corpus), split="test_data")
    seen_turns: list[int] = []

    def accepts_then_decides(observation):
        seen_turns.append(len(observation.dialogue))
        views = {card.id: {"seen": False, "like": True} for card in observation.shown}
        return SeekerReply("ok, that one", accept=True, metadata={"decisions": views})

    episodes = _episodes(corpus)
    pairs = compare_reactions(setup, episodes, seeker_from_function(accepts_then_decides))
    assert len(seen_turns) > len([e for e in episodes if e.id in {c.conversation_id for c in setup.conversations}])
    assert pairs and all(p.simulated == "like" and p.simulated_seen == "unseen" for p in pairs)
    assert all(p.real_seen == "unseen" for p in pairs)  # the fixture's people had seen none of the suggestions
    assert reaction_figures(pairs).seen_kappa[0] == 0.0  # one label on both sides: no agreement beyond chance


def test_crsim_validate_reactions_writes_the_seekers_and_the_reference(corpus, tmp_path, capsys):
    import pandas as pd

    from simulators.cli.validate_reactions import main

    out = tmp_path / "out"
    assert main([str(corpus), "--seeker", "target_biased", "--split", "test_data", "--out", str(out),
                 "--set", "seeker.policy=null"]) == 0
    printed = capsys.readouterr().out
    rows = pd.read_csv(out / "reactions.csv").set_index("seeker")
    assert "target_biased" in rows.index and rows.loc["target_biased", "pairs"] > 0
    # the fixture's people like every film suggested to them: nothing for the reference to learn
    # (tests/simulators/validity/test_predictability.py measures the reference itself)
    assert "reference: left out, no reactions to learn from in train_data" in printed
    assert not any(s.startswith("reference") for s in rows.index)
    assert main([str(corpus), "--seeker", "target_biased", "--split", "train_data", "--out", str(out),
                 "--set", "seeker.policy=null"]) == 0
    assert "reference: left out, --split is the training split train_data" in capsys.readouterr().out
    assert main([str(corpus), "--seeker", "target_biased", "--split", "test_data", "--out", str(out),
                 "--set", "seeker.policy=null", "--train-split", "none"]) == 0
    assert not any(s.startswith("reference") for s in pd.read_csv(out / "reactions.csv")["seeker"])

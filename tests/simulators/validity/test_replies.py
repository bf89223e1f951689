"""Replies in context: the real recommender's turns held fixed, the seeker's words beside the person's."""

from pathlib import Path

import pandas as pd
import pytest

from agents.base import seeker_from_function
from crsim_testing import import_redial_fixture
from environments.base import SeekerReply
from environments.models import Episode, Role, Turn
from environments.single_target import build_grounded
from simulators.validity.replies import recommender_groups, replay_all


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return import_redial_fixture(tmp_path_factory, n_train=10, n_test=6)


def _episodes(corpus: Path) -> list[Episode]:
    return [Episode.model_validate_json(line) for line in (corpus / "dialogues.jsonl").read_text().splitlines()]


def test_consecutive_recommender_messages_are_one_turn():
    turns = [Turn(index=i, role=role, text=text) for i, (role, text) in enumerate([
        (Role.seeker, "hi"), (Role.recommender, "Great."), (Role.recommender, "How are you?"),
        (Role.seeker, "good"), (Role.seeker, "and you?"), (Role.recommender, "Fine")])]
    episode = Episode(id="c", index=0, config_hash="x", seed=0, environment="t", turns=turns, termination="max_turns")
    groups = recommender_groups(episode, 1)
    assert [([t.text for t in r], [t.text for t in s]) for r, s in groups] == [
        (["Great.", "How are you?"], ["good", "and you?"]), (["Fine"], [])]


def test_each_real_recommender_turn_gets_one_reply_and_the_people_keep_theirs(corpus):
    setup = build_grounded(str(corpus), split="test_data")
    heard: list[str] = []

    def echo(observation):
        heard.append(observation.dialogue[-1].text)
        return SeekerReply(f"you said {len(heard)}")

    episodes = _episodes(corpus)
    people, simulated = replay_all(setup, episodes, seeker_from_function(echo))
    grounded = {c.conversation_id for c in setup.conversations}
    assert [p.id for p in people] == [e.id for e in episodes if e.id in grounded]
    assert [s.id for s in simulated] == [f"replay-{p.id}" for p in people]
    for person, replayed in zip(people, simulated, strict=True):
        original = next(e for e in episodes if e.id == person.id)
        assert [t.text for t in person.turns] == [t.text for t in original.turns]  # the whole conversation
        roles = [t.role for t in replayed.turns if not t.metadata.get("opening")]
        assert roles == [Role.recommender, Role.seeker] * (len(roles) // 2)  # one reply to each recommender turn
        opening = [t.text for t in replayed.turns if t.metadata.get("opening")]
        assert opening and opening == [t.text for t in person.turns if t.metadata.get("opening")]
    said_to = [t.text for s in simulated for t in s.turns if t.role == Role.recommender and not t.metadata.get("opening")]
    assert said_to == heard  # what it answered is exactly the real recommender's words, in order


def test_crsim_validate_replies_writes_the_table_and_the_transcripts(corpus, tmp_path, capsys):
    from simulators.cli.validate import main

    out = tmp_path / "out"
    assert main(["replies", str(corpus), "--seeker", "target_biased", "--split", "test_data", "--no-classifier",
                 "--out", str(out), "--set", "seeker.policy=null"]) == 0
    frame = pd.read_csv(out / "validity.csv").set_index(["set", "figure"])
    assert {"people", "target_biased"} <= set(frame.index.get_level_values(0))
    assert frame.loc[("target_biased", "words_per_turn"), "value"] > 0
    replayed = (out / "target_biased" / "episodes.jsonl").read_text().splitlines()
    assert len(replayed) == len(build_grounded(str(corpus), split="test_data").conversations)
    assert "words_per_turn" in capsys.readouterr().out

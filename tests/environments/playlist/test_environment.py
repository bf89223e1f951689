"""The playlist environment: goal sets, the set state per round, refusals, seeker visibility."""

from __future__ import annotations

import asyncio
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest
from omegaconf import OmegaConf

from environments.base import Recommendation, SeekerReply
from environments.catalog import Catalog
from environments.catalog.jsonl import write_jsonl
from environments.errors import CrsimError
from environments.models import CatalogManifest, Episode, Item, Role, TerminationReason, Turn
from environments.playlist import Curation, PlaylistSeekerObservation, PlaylistSetup
from environments.playlist.goals import load_goals
from environments.worlds.music import generate_music_world

SEEKER, CURATOR = Role.seeker.value, Role.recommender.value


@pytest.fixture(scope="module")
def catalog(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    path = tmp_path_factory.mktemp("music")
    generate_music_world(n_items=300, n_users=20, seed=2, n_themes=4).save(path)
    return Catalog.load(path)


@pytest.fixture(scope="module")
def setup(catalog: Catalog) -> PlaylistSetup:
    return PlaylistSetup(catalog, top_k=5)


def _start(setup: PlaylistSetup, index: int = 0):
    env = setup.new_episode()
    first = env.reset(seed=1, options={"episode_index": index})
    return env, first


def _outside(setup: PlaylistSetup, goal: tuple[str, ...], n: int) -> list[str]:
    return [i for i in setup.catalog.item_ids if i not in goal][:n]


def test_one_episode_per_goal_opened_by_its_request(setup: PlaylistSetup) -> None:
    assert setup.roles == (CURATOR, SEEKER) and len(setup.goals) == 4
    for index in range(5):
        env, first = _start(setup, index)
        goal = setup.goals[index % 4]
        opening = env.dialogue.transcript()[0]
        assert (opening.role, opening.text, opening.metadata) == (SEEKER, goal.request, {"opening": True})
        assert first[CURATOR].dialogue[0].text == goal.request  # the curator reads the request
        assert env.evaluation().targets == list(goal.items) and 10 <= len(goal.items) <= 30


def test_the_seeker_gets_the_theme_never_the_goal_ids(setup: PlaylistSetup) -> None:
    env, first = _start(setup, 1)
    goal = setup.goals[1]
    observation = first[SEEKER]
    assert isinstance(observation, PlaylistSeekerObservation)
    brief = observation.profile
    assert brief.size == len(goal.items) and brief.request == goal.request and brief.name == goal.name
    for aspect, value in goal.constraints.items():
        assert brief.values[aspect][value] == 1.0 and value in brief.wanted(aspect)
    text = repr({f.name: getattr(observation, f.name) for f in fields(observation)})
    assert not any(item_id in text for item_id in goal.items)
    env.step(CURATOR, Curation("Here are some.", shown=list(goal.items[:3]), add=[goal.items[0]]))
    later = env.observe(SEEKER)  # shown and set cards carry ids, as any screen does; the brief still none
    assert not any(item_id in repr(later.profile) for item_id in goal.items)


def test_set_state_per_round_and_a_removed_item_can_come_back(setup: PlaylistSetup) -> None:
    env, _ = _start(setup, 0)
    goal = setup.goals[0].items
    other = _outside(setup, goal, 2)
    shown = [goal[0], other[0], goal[1], other[1]]
    env.step(CURATOR, Curation("Try these.", shown=shown, add=[goal[0], other[0]]))
    record = env.evaluations[-1]
    assert record.top == shown and record.item_set.items == [goal[0], other[0]]
    assert {r.item_id: r.rank for r in record.ranks}[goal[1]] == 3  # goal items not yet in the set
    assert {r.item_id: r.rank for r in record.ranks}[goal[2]] == len(setup.catalog.items)  # not shown: last
    assert env.observe(CURATOR).item_set[1].id == other[0]
    result = env.step(SEEKER, SeekerReply("Not that one.", feedback={goal[0]: "like", other[0]: "dislike"},
                                          remove=[other[0], goal[0]]))
    assert not result.terminated
    record = env.evaluations[-1]
    assert record.item_set.items == [] and record.item_set.removed == [other[0], goal[0]]
    assert record.item_set.added == [goal[0], other[0]]
    env.step(CURATOR, Curation("Back in it goes.", shown=[goal[0]], add=[goal[0]]))  # re-added
    assert env.evaluations[-1].item_set.items == [goal[0]] and env.evaluations[-1].turn == 2
    assert env.evaluations[-1].ranks[0].item_id == goal[0]  # out of the set again, so ranked again
    result = env.step(SEEKER, SeekerReply("Perfect, that's my playlist.", feedback={goal[0]: "like"}, accept=True))
    assert result.termination is TerminationReason.set_complete
    seeker_turn = env.dialogue.transcript()[-1]
    assert seeker_turn.feedback == {goal[0]: "like"} and seeker_turn.removed == []


def test_ids_outside_the_catalog_and_misplaced_moves_are_refused_in_the_log(setup: PlaylistSetup) -> None:
    env, _ = _start(setup, 2)
    goal = setup.goals[2].items
    result = env.step(CURATOR, Curation("Some tracks.", shown=["no-such-track", goal[0], goal[1]],
                                        add=["no-such-track", goal[0], goal[2]], metadata={"query": "q"}))
    turn = env.dialogue.transcript()[-1]
    assert turn.items_shown == [goal[0], goal[1]] and turn.added == [goal[0]]
    reasons = {(r["item_id"], r["reason"]) for r in turn.metadata["refused"]}
    assert ("no-such-track", "shown item is not in the catalog") in reasons
    assert ("no-such-track", "added item is not in the catalog") in reasons
    assert (goal[2], "cannot add an item that is not shown this turn") in reasons
    assert turn.metadata["query"] == "q" and result.info["refused"] == turn.metadata["refused"]
    env.step(SEEKER, SeekerReply("Hmm.", feedback={"ghost": "like", goal[3]: "like", goal[1]: "meh"},
                                 remove=[goal[1], "ghost"]))
    turn = env.dialogue.transcript()[-1]
    assert turn.feedback == {} and turn.removed == []
    reasons = {(r["item_id"], r["reason"]) for r in turn.metadata["refused"]}
    assert ("ghost", "feedback on an item outside the catalog") in reasons
    assert (goal[3], "feedback on an item that is not shown") in reasons
    assert (goal[1], "cannot remove an item that is not in the set") in reasons
    assert ("ghost", "removed item is not in the catalog") in reasons
    assert any(r["item_id"] == goal[1] and "is not one of" in r["reason"] for r in turn.metadata["refused"])
    curator_view = env.observe(CURATOR).dialogue[-1]
    assert "refused" not in curator_view.metadata  # the seeker's notes stay private


def test_a_ranking_recommender_can_curate(setup: PlaylistSetup) -> None:
    env, _ = _start(setup, 0)
    goal = setup.goals[0].items
    env.step(CURATOR, Recommendation("Ranked.", ranked_ids=["nope", *goal[:7]]))
    turn = env.dialogue.transcript()[-1]
    assert turn.items_shown == list(goal[:4]) and turn.added == list(goal[:3])  # top_k 5, 3 adds
    assert turn.metadata["refused"][0]["item_id"] == "nope"
    env.step(CURATOR, Recommendation("Scored.", scores=[float(-i) for i in range(len(setup.catalog.items))]))
    assert env.dialogue.transcript()[-1].items_shown == setup.catalog.item_ids[:5]
    with pytest.raises(TypeError, match="cannot make a SeekerReply"):
        env.step(CURATOR, SeekerReply("wrong role"))


def test_logged_moves_replay_to_the_same_set_states(setup: PlaylistSetup) -> None:
    env, _ = _start(setup, 3)
    goal = setup.goals[3].items
    moves = [(CURATOR, Curation("One.", shown=list(goal[:4]), add=list(goal[:2]))),
             (SEEKER, SeekerReply("Drop the first.", feedback={goal[0]: "dislike"}, remove=[goal[0]])),
             (CURATOR, Curation("Two.", shown=list(goal[4:8]), add=[goal[4]])),
             (SEEKER, SeekerReply("Done.", add=[goal[5]], accept=True))]
    for role, action in moves:
        ending = env.step(role, action).termination
    logged = [t for t in env.dialogue.transcript() if not t.metadata.get("opening")]
    again, _ = _start(setup, 3)
    for turn in logged:
        last = turn is logged[-1]
        again.step(turn.role, setup.scripted_action(turn.role, turn, ending if last else None))
    assert [r.item_set for r in again.evaluations] == [r.item_set for r in env.evaluations]
    assert again.evaluations[-1].item_set.items == [goal[1], goal[4], goal[5]]


def test_goals_from_imported_conversations(tmp_path: Path) -> None:
    items = [Item(id=f"tr{i}", title=f"Song {i}", category="track",
                  attributes={"artist": [f"Band {i % 3}"], "album": f"Album {i % 4}"}) for i in range(12)]
    Catalog(CatalogManifest(name="cpcd-fixture", domain="track", item_noun="tracks"), items, [], []).save(tmp_path)
    dialogues = [
        Episode(id="conv1", index=0, config_hash="", seed=0, environment="cpcd", targets=["tr1", "tr4", "tr7", "zz"],
                turns=[Turn(index=0, role="seeker", text="Songs for a long drive please"),
                       Turn(index=1, role="recommender", text="Sure")], termination=TerminationReason.accepted),
        Episode(id="conv2", index=1, config_hash="", seed=0, environment="cpcd", targets=["tr2"],
                turns=[Turn(index=0, role="seeker", text="one song")], termination=TerminationReason.accepted),
    ]
    write_jsonl(tmp_path / "dialogues.jsonl", dialogues)
    goals = load_goals(Catalog.load(tmp_path))
    assert [(g.goal_id, g.request, g.items) for g in goals] == [
        ("conv1", "Songs for a long drive please", ("tr1", "tr4", "tr7"))]
    assert goals[0].brief.values["artist"] == {"Band 1": 1.0}  # 1, 4, 7 are all band 1; no albums
    env = PlaylistSetup(Catalog.load(tmp_path)).new_episode()
    env.reset(seed=0, options={"episode_index": 0})
    assert env.dialogue.transcript()[0].text == "Songs for a long drive please"


def test_a_catalog_without_goals_is_a_clear_error(tmp_path: Path) -> None:
    Catalog(CatalogManifest(name="plain"), [Item(id="a", title="A")], [], []).save(tmp_path)
    with pytest.raises(CrsimError, match="no playlist goals"):
        PlaylistSetup(Catalog.load(tmp_path))


def test_built_from_its_config_on_the_music_world(crsim_cache: Path) -> None:
    from simulators.engine.build import build_setup

    config = OmegaConf.load(Path(__file__).parents[3] / "conf" / "environment" / "playlist.yaml")
    config.world = {"domain": "music", "n_items": 300, "n_users": 20, "seed": 4, "cache_dir": str(crsim_cache)}
    config.max_goals = 3
    setup = build_setup(config)
    assert isinstance(setup, PlaylistSetup) and len(setup.goals) == 3 and setup.top_k == 10
    assert setup.catalog.manifest.domain == "music"


def test_an_episode_runs_to_set_complete_and_scores(setup: PlaylistSetup) -> None:
    from agents.base import agent_from_function
    from simulators.engine.episode import run_episode
    from simulators.metrics import HitsAt, SetF1, SetPrecision, SetRecall, episode_metrics

    goal = setup.goals[0].items

    def curate(observation: Any) -> Curation:
        chunk = list(goal[2 * observation.turn: 2 * observation.turn + 2])
        return Curation("Adding two.", shown=chunk + ["not-a-track"], add=chunk)

    def react(observation: Any) -> SeekerReply:
        return SeekerReply("More.", feedback={c.id: "like" for c in observation.shown},
                           accept=len(observation.item_set) >= 4)

    agents = {CURATOR: agent_from_function(CURATOR, curate), SEEKER: agent_from_function(SEEKER, react)}
    outcome = asyncio.run(run_episode(setup, agents, index=0, run_seed=0, max_turns=5, config_hash="t"))
    episode = outcome.episode
    assert episode.error is None and episode.termination is TerminationReason.set_complete
    assert [r.item_set.items for r in episode.evaluations] == [list(goal[:2]), list(goal[:4])]
    values = episode_metrics(episode, 5, [SetPrecision(), SetRecall(), SetF1(), HitsAt(10)])
    assert values[1]["set_precision"] == 1.0 and values[2]["set_recall"] == pytest.approx(4 / len(goal))
    assert values[5]["set_f1"] == values[2]["set_f1"] and values[1]["hits@10"] == 1.0
    assert episode.turns[1].metadata["refused"][0]["item_id"] == "not-a-track"


def test_keeps_the_environment_contract(setup):
    from environments.check import check_environment

    check_environment(setup, rounds=3)

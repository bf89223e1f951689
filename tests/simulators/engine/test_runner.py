"""Episode loop and runner on the tiny catalog, with small function agents (no model)."""

import numpy as np

from agents.base import recommender_from_function, seeker_from_function
from environments.base import Recommendation, SeekerReply
from environments.models import TerminationReason
from environments.single_target import SingleTargetSetup
from simulators.engine.runner import EPISODES_FILE, run_episodes


def keyword_recommender(catalog):
    """Scores items by how many seeker words appear in their attributes."""
    def respond(obs):
        words = " ".join(t.text for t in obs.dialogue if t.role == "seeker").lower().split()
        scores = np.array([sum(str(v) in words for v in item.attributes.values()) for item in catalog.items],
                          dtype=float)
        return Recommendation(question=f"Turn {obs.turn}: anything else?", scores=scores)
    return recommender_from_function(respond)


def attribute_seeker(accept_when_shown=False):
    def respond(obs):
        profile = obs.profile
        if accept_when_shown and any(card.id == profile.target_id for card in obs.shown):
            return SeekerReply(text="That's the one!", accept=True)
        values = [v for v in profile.attributes.values() if isinstance(v, str)]
        return SeekerReply(text=f"I want {values[obs.turn % len(values)]}")
    return seeker_from_function(respond)


def _run(tmp_path, setup, rec, seek, **kw):
    import asyncio
    args = dict(episodes=6, max_turns=3, seed=7, concurrency=3, run_dir=tmp_path, config_hash="h", progress=False)
    args.update(kw)
    return asyncio.run(run_episodes(setup, {"recommender": rec, "seeker": seek}, **args))


def test_runs_logs_and_ranks(tiny_catalog, tmp_path):
    setup = SingleTargetSetup(tiny_catalog, target_pool_size=10)
    summary = _run(tmp_path, setup, keyword_recommender(setup.recommender_catalog), attribute_seeker())
    assert summary.ran == 6 and summary.errors == 0
    for episode in summary.episodes:
        assert episode.termination is TerminationReason.max_turns
        assert [r.turn for r in episode.evaluations] == [1, 2, 3]
        assert len(episode.turns) == 1 + 2 * 3  # opening + (seeker, recommender) per turn
        assert episode.evaluations[-1].best_rank <= 8  # 3 attributes stated: few items match all
    assert (tmp_path / "timings.jsonl").exists()


def test_same_seed_gives_byte_identical_log(tiny_catalog, tmp_path):
    setup = SingleTargetSetup(tiny_catalog, target_pool_size=10)
    rec, seek = keyword_recommender(setup.recommender_catalog), attribute_seeker()
    _run(tmp_path / "a", setup, rec, seek)
    _run(tmp_path / "b", setup, rec, seek)
    assert (tmp_path / "a" / EPISODES_FILE).read_bytes() == (tmp_path / "b" / EPISODES_FILE).read_bytes()
    _run(tmp_path / "c", setup, rec, seek, seed=8)
    assert (tmp_path / "a" / EPISODES_FILE).read_bytes() != (tmp_path / "c" / EPISODES_FILE).read_bytes()


def test_crashing_episode_is_isolated(tiny_catalog, tmp_path):
    setup = SingleTargetSetup(tiny_catalog, target_pool_size=10)
    good = keyword_recommender(setup.recommender_catalog)

    def flaky(obs):
        if obs.episode_seed % 2 == 0 and obs.turn == 1:
            raise RuntimeError("boom in turn 1")
        return SeekerReply(text="thai")

    summary = _run(tmp_path, setup, good, seeker_from_function(flaky), episodes=10)
    assert len(summary.episodes) == 10
    crashed = [e for e in summary.episodes if e.termination is TerminationReason.error]
    assert 0 < len(crashed) < 10
    for episode in crashed:
        assert "boom in turn 1" in episode.error and len(episode.evaluations) == 1 and episode.turns


def test_resume_skips_finished_episodes_and_keeps_them(tiny_catalog, tmp_path):
    setup = SingleTargetSetup(tiny_catalog, target_pool_size=10)
    rec, seek = keyword_recommender(setup.recommender_catalog), attribute_seeker()
    first = _run(tmp_path, setup, rec, seek, episodes=4)
    log = tmp_path / EPISODES_FILE
    with log.open("ab") as handle:  # a hard kill left half a line behind
        handle.write(b'{"schema_version": 1, "id": "s7-e0000')
    second = _run(tmp_path, setup, rec, seek, episodes=6)
    assert (first.ran, second.ran, second.skipped) == (4, 2, 4)
    assert [e.index for e in second.episodes] == list(range(6))
    assert second.problems == [] and all(line.endswith("}") for line in log.read_text().splitlines())  # cut: gone
    other = _run(tmp_path, setup, rec, seek, episodes=2, config_hash="other")
    assert other.ran == 2  # another config's episodes are not reused


def test_accepting_seeker_ends_episode_early(tiny_catalog, tmp_path):
    setup = SingleTargetSetup(tiny_catalog, target_pool_size=10)
    summary = _run(tmp_path, setup, keyword_recommender(setup.recommender_catalog),
                   attribute_seeker(accept_when_shown=True), max_turns=5)
    accepted = [e for e in summary.episodes if e.termination is TerminationReason.accepted]
    assert accepted and all(len(e.evaluations) < 5 for e in accepted)

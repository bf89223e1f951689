"""Logs for report tests, written by hand: a report reads files, so the tests write files.

`dialogue_episode` builds a full transcript (opening question, seeker answers, ranked
recommender turns showing items of the tiny catalog) without running any agent, and
`write_run` lays it out like `crsim run` does, optionally as one job of a sweep.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
import yaml

from environments.models import (
    Episode, LLMCallSummary, Role, TargetRank, TerminationReason, Turn, TurnEvaluation,
)

XSS = '<img src=x onerror="window.__xss=1"></script><script>window.__xss=2</script>'


def dialogue_episode(index: int, ranks: Sequence[int], *, target: str = "i05",
                     termination: TerminationReason = TerminationReason.max_turns,
                     seeker_text: str = "Something {cuisine} please, episode {index} turn {turn}.") -> Episode:
    """An episode with a transcript: opening, then per rank a seeker answer and a ranked
    recommender turn showing four tiny-catalog items (the target among them at rank <= 4)."""
    turns = [Turn(index=0, role=Role.recommender, text="Hello, what are you looking for?",
                  metadata={"opening": True})]
    rankings = []
    for turn_no, rank in enumerate(ranks, start=1):
        turns.append(Turn(index=len(turns), role=Role.seeker,
                          text=seeker_text.format(cuisine="italian", index=index, turn=turn_no),
                          feedback={"i01": "dislike"} if turn_no > 1 else {},
                          metadata={"fact": f"attr:cuisine=italian#{turn_no}"}))
        shown = [f"i{k:02d}" for k in range(4)]
        if rank <= 4:
            shown[rank - 1] = target
        turns.append(Turn(index=len(turns), role=Role.recommender, text=f"Question {turn_no}?",
                          items_shown=shown, metadata={"aspect": "cuisine"}))
        rankings.append(TurnEvaluation(turn=turn_no, source_turn=len(turns) - 1, n_candidates=24, top=shown,
                                       ranks=[TargetRank(item_id=target, rank=rank, n_better=rank - 1, n_tied=1)]))
    return Episode(
        id=f"s0-e{index:05d}", index=index, config_hash="h", seed=100 + index, environment="single_target",
        targets=[target], profile={"target_id": target}, turns=turns, evaluations=rankings,
        termination=termination,
        llm_calls=[LLMCallSummary(step="seeker_answer", role="seeker", prompt_hash="p", ok=True)],
    )


def write_run(run_dir: Path, episodes: Sequence[Episode], *, overrides: Sequence[str] = (),
              config: dict[str, Any] | None = None, llm_calls: Sequence[dict[str, Any]] = (),
              extra_lines: Sequence[str] = ()) -> Path:
    """A run directory as `crsim run` leaves it (episodes.jsonl, optional config.yaml,
    .hydra/overrides.yaml for sweep labels, llm_calls.jsonl); `extra_lines` are appended raw."""
    run_dir.mkdir(parents=True, exist_ok=True)
    lines = [e.model_dump_json() for e in episodes] + list(extra_lines)
    (run_dir / "episodes.jsonl").write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    if overrides:
        (run_dir / ".hydra").mkdir(exist_ok=True)
        (run_dir / ".hydra" / "overrides.yaml").write_text(yaml.safe_dump(list(overrides)))
    if config is not None:
        (run_dir / "config.yaml").write_text(yaml.safe_dump(config))
    if llm_calls:
        (run_dir / "llm_calls.jsonl").write_text("".join(json.dumps(c) + "\n" for c in llm_calls))
    return run_dir


def llm_call(episode_id: str, response: str = '{"answer": "italian"}') -> dict[str, Any]:
    return {"episode_id": episode_id, "step": "seeker_answer", "role": "seeker", "model": "stub-model",
            "prompt_hash": "abc", "messages": [{"role": "system", "content": "You are a seeker."},
                                               {"role": "user", "content": "What cuisine?"}],
            "response": response, "ok": True, "repaired": False, "error": None, "attempt": 0,
            "latency_s": 0.01, "input_tokens": 12, "output_tokens": 5, "params": {}, "cache_hit": False,
            "cost_usd": 0.00042}


@pytest.fixture
def report_sweep(tmp_path: Path) -> Path:
    """A two-config sweep: `recommender=good` finds the target fast, `recommender=bad` never.
    Episode 3 of `good` was accepted; one seeker line carries an XSS attempt."""
    good = [dialogue_episode(i, [3, 2, 1]) for i in range(6)]
    good[3] = dialogue_episode(3, [2, 1], termination=TerminationReason.accepted)
    good[4] = dialogue_episode(4, [3, 2, 1], seeker_text=XSS)
    bad = [dialogue_episode(i, [20, 18, 15]) for i in range(6)]
    sweep = tmp_path / "sweep"
    write_run(sweep / "good", good, overrides=["recommender=good", "episodes=6"],
              llm_calls=[llm_call(good[0].id), llm_call(good[0].id, response="</script><b>bold?</b>")])
    write_run(sweep / "bad", bad, overrides=["recommender=bad", "episodes=6"])
    return sweep


@pytest.fixture
def write_run_fn() -> Callable[..., Path]:
    return write_run


@pytest.fixture
def dialogue_episode_fn() -> Callable[..., Episode]:
    return dialogue_episode

"""GraphAgent refuses graphs LangGraph would run partly on a thread pool, and the
offline agents never leave the event loop (so episode interleaving, and with it the log's
line order and the encoder memo's fill order, is the same on every run)."""

import asyncio

import pytest
from langgraph.graph import END, START, StateGraph

from agents.base import GraphAgent, TurnState, check_runs_on_loop, threaded_parts
from simulators.engine.episode import orchestrator


def _graph(node, route):
    graph = StateGraph(TurnState)
    graph.add_node("respond", node)
    graph.add_conditional_edges(START, route, ["respond", END])
    graph.add_edge("respond", END)
    return graph.compile(name="plugin")


def plain_node(state):
    return {"action": 1}


async def async_node(state):
    return {"action": 1}


def plain_route(state):
    return "respond"


async def async_route(state):
    return "respond"


def test_plain_function_nodes_and_edges_are_named_and_refused():
    assert threaded_parts(_graph(async_node, async_route)) == []
    assert threaded_parts(_graph(plain_node, async_route)) == ["node 'respond'"]
    assert threaded_parts(_graph(async_node, plain_route)) == ["edge 'plain_route' after '__start__'"]
    with pytest.raises(TypeError, match=r"plugin: node 'respond', edge 'plain_route' .* must be `async def`"):
        GraphAgent("seeker", _graph(plain_node, plain_route), None)
    GraphAgent("seeker", _graph(async_node, async_route), None)


def test_the_episode_graph_runs_on_the_loop():
    check_runs_on_loop(orchestrator(("recommender", "seeker")))


def test_offline_episodes_never_use_the_thread_pool(tiny_catalog, tmp_path, monkeypatch):
    from agents.recommenders import bm25
    from agents.seekers import target_biased
    from environments.single_target import SingleTargetSetup
    from simulators.engine.runner import run_episodes

    def refuse(self, executor, func, *args):
        raise AssertionError(f"an episode step ran on the thread pool: {func!r}")

    monkeypatch.setattr(asyncio.BaseEventLoop, "run_in_executor", refuse)
    setup = SingleTargetSetup(tiny_catalog, target_pool_size=10)
    agents = {"recommender": bm25.build(setup.recommender_catalog, cache_dir=str(tmp_path / "cache")),
              "seeker": target_biased.build()}
    summary = asyncio.run(run_episodes(setup, agents, episodes=4, max_turns=3, seed=1, concurrency=4,
                                       run_dir=tmp_path / "run", config_hash="h", progress=False))
    assert summary.ran == 4 and summary.errors == 0

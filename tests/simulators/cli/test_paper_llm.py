"""`paper_llm=NAME` puts the agents each experiment's paper ran on a language model on that
backend, one override; without it every agent stays offline and the config is unchanged."""

from __future__ import annotations

import pytest
from omegaconf import OmegaConf

from simulators.engine.hydra_setup import compose_config

#: experiment -> the agents its paper ran on a language model
PAPER_AGENTS = {
    "sniprec": {"recommender"},
    "pepper": {"seeker", "judge"},
    "crag": {"recommender"},
    "playlist": {"recommender", "seeker"},
    "tracer": {"seller", "customer"},
}


def backends(*overrides: str) -> dict[str, dict]:
    config = OmegaConf.to_container(compose_config(overrides))
    return {k: v["llm"] for k, v in config.items() if isinstance(v, dict) and isinstance(v.get("llm"), dict)}


@pytest.mark.parametrize("experiment", sorted(PAPER_AGENTS))
def test_one_override_puts_the_papers_llm_agents_on_the_model(experiment):
    llms = backends(f"experiment={experiment}", "paper_llm=qwen2.5-1.5b")
    on_model = {agent for agent, llm in llms.items() if llm["_target_"] == "agents.llm.local.local"}
    assert on_model == PAPER_AGENTS[experiment]
    assert all(llms[a]["model"] == "qwen2.5-1.5b" and llms[a]["n_threads"] == 1 and llms[a]["instances"] == 2
               for a in on_model)


@pytest.mark.parametrize("experiment", sorted(PAPER_AGENTS))
def test_without_it_every_agent_is_offline_and_no_key_is_added(experiment):
    config = OmegaConf.to_container(compose_config([f"experiment={experiment}"]))
    assert "paper_llm" not in config
    assert {llm["_target_"] for llm in backends(f"experiment={experiment}").values()} == {"agents.llm.backends.offline"}


def test_an_agents_own_override_still_wins():
    llms = backends("experiment=crag", "paper_llm=qwen2.5-1.5b", "llm@recommender.llm=openai")
    assert llms["recommender"]["_target_"] == "agents.llm.backends.openai"
    assert backends("experiment=pepper", "llm@judge.llm=openai")["judge"]["_target_"] == "agents.llm.backends.openai"

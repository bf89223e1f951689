"""API keys come from the environment, reach the server, and never reach a log or a file.

An episode runs through the stub server with a recognisable key in the environment and
every logger at DEBUG (so the openai SDK, httpx and litellm debug output is included);
then the run's files (written as the runner writes them), the captured log records and
the process's stdout/stderr are searched for the key and for the header name.

The one mention of the header allowed: litellm's own DEBUG log prints each request as a
curl command with the value masked (`Authorization: Be****23`); the `openai` backend
never mentions the header at all, even at DEBUG.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest
from omegaconf import OmegaConf

from crsim_testing import run_llm_episode
from openai_stub_server import (
    Reply,
    crsim_responder,
    first_n,
    rate_limited,
)

from simulators.engine.outcomes import RunLogs

SECRET = "sk-test-SECRET-123"
KEY_PARTS = (SECRET, "SECRET-123", "sk-test")
HEADER = re.compile(r"authorization\W+(\S+)", re.IGNORECASE)
CONF = Path(__file__).resolve().parents[3] / "conf"


def _compose_llm(group: str, url: str) -> object:
    from hydra import compose, initialize_config_dir

    url_key = "base_url" if group == "openai" else "api_base"
    model = "stub-model" if group == "openai" else "openai/stub-model"
    with initialize_config_dir(config_dir=str(CONF), version_base="1.3"):
        return compose("config", overrides=[f"llm@seeker.llm={group}", f"llm@recommender.llm={group}",
                                            f"seeker.llm.{url_key}={url}", f"seeker.llm.model={model}"])


@pytest.mark.parametrize("group", ["openai", "litellm"])
def test_api_key_is_sent_but_never_logged_or_written(group, openai_stub, tiny_catalog, hash_encoder,
                                                     tmp_path, monkeypatch, caplog, capfd):
    from hydra.utils import instantiate

    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("OPENAI_LOG", "debug")
    caplog.set_level(logging.DEBUG)
    for name in ("openai", "httpx", "httpcore", "LiteLLM", "LiteLLM Router", "LiteLLM Proxy"):
        caplog.set_level(logging.DEBUG, logger=name)
    # failures too: error messages and retries are where headers tend to leak
    broken_then_ok = first_n(1, Reply(content="oops {"), crsim_responder())
    openai_stub.responder = first_n(1, rate_limited(), crsim_responder({"seeker_answer": broken_then_ok}))

    cfg = _compose_llm(group, openai_stub.url)
    model = instantiate(cfg.seeker.llm)
    outcome = run_llm_episode(model, tiny_catalog, hash_encoder)

    run_dir = tmp_path / "run"
    RunLogs(run_dir).write(outcome)
    (run_dir / "config.yaml").write_text(OmegaConf.to_yaml(cfg, resolve=True), encoding="utf-8")
    (run_dir / "episode.json").write_text(outcome.episode.model_dump_json(indent=2), encoding="utf-8")
    (run_dir / "model.txt").write_text(f"{model!r}\n{model}", encoding="utf-8")

    assert openai_stub.completions[0].header("Authorization") == f"Bearer {SECRET}"
    assert any(not c.ok for c in outcome.llm_calls) and outcome.episode.llm_calls[-1].ok
    assert (run_dir / "llm_calls.jsonl").stat().st_size > 0
    out, err = capfd.readouterr()
    places = {str(p): p.read_text(encoding="utf-8", errors="replace")
              for p in tmp_path.rglob("*") if p.is_file()}
    places |= {"caplog": caplog.text, "stdout": out, "stderr": err,
               "records": "\n".join(str(r.__dict__) for r in caplog.records)}
    assert len(places) >= 8 and caplog.records  # debug logging did run
    leaks = [(where, part) for where, text in places.items() for part in KEY_PARTS if part in text]
    assert leaks == []
    headers = {(where, value) for where, text in places.items() for value in HEADER.findall(text)}
    if group == "openai":
        assert headers == set()
    else:
        assert all("****" in value for _, value in headers)  # litellm DEBUG: masked, not the key

"""`crsim run recommender=http` end to end, against `crsim serve` and a scripted server.

The promise of the adapter: a crsim recommender served over HTTP runs exactly as it does in
process (same seed, same per-turn metrics, episodes identical but for the exchanges'
latency); a CRS that is down or answers garbage costs the episodes it broke and nothing
else (one-line reasons, the run's summary counts them, status 1 when some failed and 2
when all did); and a run against a remote CRS replays with the CRS held fixed and no
server running."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from crs_stub_server import Answer, Served, free_port
from crsim_testing import crsim

TINY = ("environment.target_pool_size=6", "episodes=6", "max_turns=3", "progress=false")


def run(catalog: Path, run_dir: Path, *overrides: str):
    return crsim("run", f"environment.catalog={catalog}", *TINY, *overrides, f"hydra.run.dir={run_dir}")


def episodes(run_dir: Path) -> list[dict]:
    """The logged episodes with what differs between two runs by nature left out."""
    out = []
    for line in (run_dir / "episodes.jsonl").read_text().splitlines():
        episode = json.loads(line)
        episode.pop("config_hash")
        for turn in episode["turns"]:
            turn["metadata"].pop("remote", None)
        out.append(episode)
    return out


@pytest.fixture(scope="module")
def bm25_server(tmp_path_factory):
    catalog = tmp_path_factory.mktemp("served") / "tiny"
    from crsim_testing import make_tiny_catalog

    make_tiny_catalog().save(catalog)
    served = Served("recommender=bm25", f"environment.catalog={catalog}", *TINY)
    try:
        yield catalog, served
    finally:
        served.stop()


def test_a_served_recommender_runs_exactly_as_in_process(bm25_server, tmp_path):
    catalog, served = bm25_server
    remote = run(catalog, tmp_path / "http", "recommender=http", f"recommender.url={served.url}", "concurrency=4")
    local = run(catalog, tmp_path / "local", "recommender=bm25", "concurrency=4")
    assert remote.returncode == 0 and local.returncode == 0, remote.stderr[-2000:] + local.stderr[-2000:]
    results = pd.read_csv(tmp_path / "http" / "results.csv")
    assert results.equals(pd.read_csv(tmp_path / "local" / "results.csv"))
    assert episodes(tmp_path / "http") == episodes(tmp_path / "local")  # 4 conversations at once stayed apart
    summary = json.loads((tmp_path / "http" / "remote.json").read_text())
    assert summary["exchanges"] == 6 * 3 and summary["p50_ms"] > 0 and summary["retried"] == 0
    assert "remote agent: 18 exchanges, latency p50" in remote.stdout
    report = crsim("report", str(tmp_path / "http"))
    assert report.returncode == 0 and "remote agent: 18 exchanges, latency p50" in report.stdout


def test_a_remote_run_replays_with_the_crs_fixed_and_no_server(bm25_server, tmp_path):
    catalog, served = bm25_server
    first = run(catalog, tmp_path / "http", "recommender=http", f"recommender.url={served.url}")
    assert first.returncode == 0, first.stderr[-2000:]
    dead = f"http://127.0.0.1:{free_port()}"  # the logged config points at a server that is gone
    config = (tmp_path / "http" / "config.yaml").read_text().replace(served.url, dead)
    (tmp_path / "http" / "config.yaml").write_text(config)
    rescore = crsim("replay", str(tmp_path / "http"), "--rescore")
    fixed = crsim("replay", str(tmp_path / "http"), "--fix", "recommender", "--out", str(tmp_path / "fixed"))
    assert rescore.returncode == 0, rescore.stdout[-2000:] + rescore.stderr[-2000:]
    assert fixed.returncode == 0 and "replayed 6 episodes (0 errors)" in fixed.stdout, fixed.stderr[-2000:]
    replayed = pd.read_csv(tmp_path / "fixed" / "results.csv")
    assert replayed.equals(pd.read_csv(tmp_path / "http" / "results.csv"))  # the seeker said the same again


def test_a_crs_that_is_down_fails_every_episode_in_one_line(tiny_catalog_dir, tmp_path):
    url = f"http://127.0.0.1:{free_port()}"
    out = run(tiny_catalog_dir, tmp_path / "run", "recommender=http", f"recommender.url={url}",
              "recommender.retries=1", "recommender.backoff_s=0.01")
    assert out.returncode == 2
    (line,) = out.stderr.strip().splitlines()
    assert line.startswith("crsim: error: every episode of this run failed (6 of 6): "
                           f"agents.remote.client.RemoteAgentError: {url}/turn: cannot connect")
    assert "(2 attempts)" in line


def test_a_crs_that_breaks_some_episodes_costs_those_alone_until_resumed(tiny_catalog_dir, tmp_path, crs_stub):
    seen: list[str] = []
    broken = [True]

    def responder(path: str, body: dict) -> Answer:
        if body["reset"]:
            seen.append(body["conversation_id"])
        if broken[0] and body["conversation_id"] == seen[1]:  # the second conversation gets garbage
            return Answer("<html>oops</html>")
        return Answer({"text": "Which cuisine do you like?", "items": ["i01", "i02"]})

    crs_stub.responder = responder
    out = run(tiny_catalog_dir, tmp_path / "run", "recommender=http", f"recommender.url={crs_stub.url}",
              "concurrency=1")
    assert out.returncode == 1, out.stderr[-2000:]
    assert "errors 1" in out.stdout
    (warning,) = out.stderr.strip().splitlines()
    assert warning.startswith("crsim: warning: 1 of 6 episodes of this run failed")
    assert "the reply is not JSON" in warning
    logged = [json.loads(line) for line in (tmp_path / "run" / "episodes.jsonl").read_text().splitlines()]
    assert [e["termination"] for e in logged].count("error") == 1 and len(logged) == 6  # nothing finished lost
    shown = [t["items_shown"] for e in logged if e["termination"] != "error" for t in e["turns"]
             if t["role"] == "recommender" and not t["metadata"].get("opening")]
    assert shown and all(items == ["i01", "i02"] for items in shown)  # what it named, and nothing more

    broken[0] = False  # the server is fixed; the same command again runs the broken episode alone
    again = run(tiny_catalog_dir, tmp_path / "run", "recommender=http", f"recommender.url={crs_stub.url}",
                "concurrency=1", "recommender.timeout_s=60")  # how it is reached is not part of the config
    assert again.returncode == 0, again.stderr[-2000:]
    assert "ran 1, resumed 5, errors 0" in again.stdout


def test_the_usersimcrs_shape_against_crsim_serve_in_that_shape(bm25_server, tmp_path):
    catalog, _ = bm25_server
    served = Served("--shape", "usersimcrs", "recommender=bm25", f"environment.catalog={catalog}", *TINY)
    try:
        out = run(catalog, tmp_path / "run", "recommender=http", "recommender.shape=usersimcrs",
                  f"recommender.url={served.url}")
    finally:
        served.stop()
    assert out.returncode == 0, out.stderr[-2000:]
    logged = [json.loads(line) for line in (tmp_path / "run" / "episodes.jsonl").read_text().splitlines()]
    moves = [t for e in logged for t in e["turns"] if t["role"] == "recommender" and "remote" in t["metadata"]]
    assert len(moves) == 18 and all("You might like:" in t["text"] for t in moves)
    assert all(len(t["items_shown"]) == 3 for t in moves)  # the three titles named, linked back to their ids

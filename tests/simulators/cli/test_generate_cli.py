"""`crsim generate shopping` end to end: both modes, a catalog directory, replay and report on its output."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crsim_testing import crsim

from environments.catalog import Catalog
from environments.models import CatalogManifest, Item
from environments.shopping.products import features

SMALL = ("environment.n_products=400",)


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def check_every_final_product(out: Path, catalog: Catalog) -> list[dict]:
    """Over the whole output: the final product holds every wanted value and no unwanted one."""
    records = read_jsonl(out / "wos.jsonl")
    for record in records:
        have = features(catalog.item(record["final_product"]["id"]))
        for feature in record["preference"]["features"]:
            held = feature["value"] in have.get(feature["aspect"], ())
            assert held if feature["interest"] == "wanted" else not (feature["interest"] == "unwanted" and held)
        assert record["satisfies"] and record["final_product"]["id"] in json.dumps(record)
        assert record["dialogue"][0]["role"] == "customer" and record["category"] in record["dialogue"][0]["text"]
    return records


@pytest.fixture(scope="module")
def single_pass(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("gen") / "wos"
    done = crsim("generate", "shopping", "--domain", "beauty", "--dialogues", "8", "--out", str(out),
                 "--compare-planners", "--no-progress", *SMALL)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "wrote 8 dialogues" in done.stdout and "turns to converge, tree" in done.stdout
    return out


def test_single_pass_writes_wos_stats_and_a_run_directory(single_pass):
    from environments.shopping.world import generate_shopping_world

    records = check_every_final_product(single_pass, generate_shopping_world("beauty", n_products=400, seed=0))
    assert len(records) == 8 and {r["mode"] for r in records} == {"single_pass"}
    stats = json.loads((single_pass / "stats.json").read_text())
    assert stats["dialogues"] == 8 and stats["final_products_satisfying"] == 8 and stats["seconds_per_dialogue"] > 0
    assert stats["avg_searches"] == pytest.approx(sum(r["searches"] for r in records) / 8)
    assert stats["avg_utterances"] == pytest.approx(sum(len(r["dialogue"]) for r in records) / 8)
    comparison = stats["planner_comparison"]
    assert comparison["pairs"] == 8 and len(comparison["turns"]["random_minus_tree"]) == 3
    again = single_pass.parent / "again"
    crsim("generate", "shopping", "--domain", "beauty", "--dialogues", "8", "--out", str(again), "--no-progress",
          *SMALL)
    assert (again / "wos.jsonl").read_bytes() == (single_pass / "wos.jsonl").read_bytes()  # deterministic
    assert (again / "episodes.jsonl").read_bytes() == (single_pass / "episodes.jsonl").read_bytes()


def test_replay_and_report_read_the_output(single_pass):
    rescored = crsim("replay", str(single_pass), "--rescore")
    assert rescored.returncode == 0, rescored.stderr[-2000:]
    rendered = crsim("replay", str(single_pass), "--render", "--episode", "s0-e00002")
    assert rendered.returncode == 0 and "customer" in rendered.stdout and "seller" in rendered.stdout
    report = crsim("report", str(single_pass), "--out", str(single_pass.parent / "report"))
    assert report.returncode == 0, report.stderr[-2000:]
    assert "fit" in (single_pass.parent / "report" / "results.md").read_text()


def test_interactive_mode_through_the_orchestrator(tmp_path):
    out = tmp_path / "wos"
    done = crsim("generate", "shopping", "--mode", "interactive", "--domain", "electronics", "--dialogues", "5",
                 "--out", str(out), "--no-progress", "--phrase-bank", "b", *SMALL)
    assert done.returncode == 0, done.stderr[-2000:]
    from environments.shopping.world import generate_shopping_world

    records = check_every_final_product(out, generate_shopping_world("electronics", n_products=400, seed=0))
    assert len(records) == 5 and {r["mode"] for r in records} == {"interactive"}
    assert len(read_jsonl(out / "timings.jsonl")) == 5
    again = crsim("replay", str(out), "--reexecute", "--out", str(tmp_path / "re"))
    assert again.returncode == 0 and "every transcript is identical" in again.stdout, again.stderr[-2000:]
    fixed = crsim("replay", str(out), "--fix", "customer", "--out", str(tmp_path / "fix"))
    assert fixed.returncode == 0 and "replayed 5 episodes (0 errors)" in fixed.stdout, fixed.stderr[-2000:]


def test_a_catalog_directory_with_missing_and_empty_features(tmp_path):
    items = [Item(id=f"p{i}", title=f"Lamp {i}", category="lamps",
                  attributes={"color": ["black", "white", "brass"][i % 3], "shade": ["linen", "glass"][i % 2],
                              "bulb": "" if i % 4 == 0 else ["led", "halogen"][i % 2]}) for i in range(24)]
    items.append(Item(id="thin", title="Lamp", category="lamps", attributes={"color": "black", "bulb": []}))
    catalog = Catalog(CatalogManifest(name="lamps", domain="home", item_noun="products"), items)
    directory = catalog.save(tmp_path / "lamps")
    out = tmp_path / "wos"
    done = crsim("generate", "shopping", "--dialogues", "6", "--out", str(out), "--no-progress",
                 f"environment.catalog={directory}")
    assert done.returncode == 0, done.stderr[-2000:]
    records = check_every_final_product(out, Catalog.load(directory))
    assert "thin" not in {r["final_product"]["id"] for r in records} and len(records) == 6


def test_bad_input_is_one_line(tmp_path):
    bad = crsim("generate", "shopping", "--dialogues", "0", "--out", str(tmp_path))
    assert bad.returncode == 2 and bad.stderr.strip() == "crsim: error: generate: --dialogues must be at least 1, got 0"
    missing = crsim("generate", "shopping", "--out", str(tmp_path), "environment.catalog=/nonexistent/catalog")
    assert missing.returncode == 2 and missing.stderr.startswith("crsim: error:") and "Traceback" not in missing.stderr
    planner = crsim("generate", "shopping", "--dialogues", "1", "--out", str(tmp_path), "environment.planner=greedy")
    assert planner.returncode == 2 and "planner must be one of tree, random" in planner.stderr


def test_single_pass_through_an_llm_server(openai_stub, tmp_path):
    out = tmp_path / "wos"
    done = crsim("generate", "shopping", "--dialogues", "2", "--out", str(out), "--no-progress", *SMALL,
                 "llm@seller.llm=openai", f"seller.llm.base_url={openai_stub.url}", "seller.llm.model=stub-model",
                 "seller.llm.cache=false")
    assert done.returncode == 0, done.stderr[-2000:]
    records = read_jsonl(out / "wos.jsonl")
    assert [t["text"] for t in records[0]["dialogue"]][:2] == ["STUB: I need a lipstick.", "STUB: which colour?"]
    assert all(r["satisfies"] for r in records)
    calls = read_jsonl(out / "llm_calls.jsonl")
    assert len(calls) == 2 and {c["step"] for c in calls} == {"shopping_single_pass"} and all(c["ok"] for c in calls)
    assert openai_stub.count >= 2  # one request per dialogue, plus any transport retry the SDK made under load


def test_generating_into_a_directory_a_run_is_writing_stops_at_once(single_pass):
    """`crsim generate` appends to a run's logs, so it takes the run-directory lock too."""
    import os

    from simulators.engine.run_lock import LOCK_FILE, run_dir_lock

    before = {name: (single_pass / name).read_bytes() for name in ("episodes.jsonl", "config.yaml", "wos.jsonl")}
    with run_dir_lock(single_pass, "crsim run"):
        refused = crsim("generate", "shopping", "--domain", "beauty", "--dialogues", "8", "--out", str(single_pass),
                        "--no-progress", *SMALL)
    assert refused.returncode == 2 and len(refused.stderr.splitlines()) == 1, refused.stderr[-2000:]
    assert refused.stderr.startswith("crsim: error:") and f"pid {os.getpid()}" in refused.stderr
    assert "own --out" in refused.stderr
    assert {name: (single_pass / name).read_bytes() for name in before} == before
    assert not (single_pass / LOCK_FILE).exists()  # released when the single-pass run ended, and now

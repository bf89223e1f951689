"""SnipRec's experiment on a review-only catalog a user imports: an Amazon 2018 5-core file
(`crsim data import amazon2018`), then `crsim run -m experiment=sniprec environment.catalog=DIR`.

All five systems run; each seeker's own review of the target is withheld from the
recommender's view, and no snippet of a withheld review reaches the index."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from omegaconf import OmegaConf

from amazon_fixture import write_amazon2018_5core
from crsim_testing import crsim
from environments.search.aspect_text import sentences

SYSTEMS = ("sniprec_document", "sniprec_sentence", "sniprec_snippet", "sniprec", "sniprec_expansion")


@pytest.fixture(scope="module")
def sweep(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("sniprec-import")
    source = write_amazon2018_5core(root / "Headphones_5.json", n_products=40)
    rows = [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines()]
    for number, row in enumerate(rows):  # one sentence unique to each review, to trace it into the index
        row["reviewText"] += f" Mine came with serial {number}x{row['asin'].lower()}."
    source.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    catalog = root / "headphones"
    out = crsim("data", "import", "amazon2018", str(source), "--out", str(catalog))
    assert out.returncode == 0, out.stderr
    out = crsim("run", "-m", "experiment=sniprec", f"environment.catalog={catalog}", "episodes=6", "progress=false",
                f"hydra.sweep.dir={root / 'sweep'}")
    assert out.returncode == 0, out.stderr[-3000:]
    return catalog, root / "sweep"


@pytest.mark.slow
def test_all_five_systems_run_on_the_imported_catalog(sweep):
    jobs = [d for d in sweep[1].iterdir() if (d / "results.csv").exists()]
    names = {OmegaConf.load(d / "config.yaml").recommender.name for d in jobs}
    assert names == set(SYSTEMS)
    for job in jobs:
        frame = pd.read_csv(job / "results.csv")
        assert set(frame[frame.metric == "hits@10"].turn) == {1, 2, 3, 4, 5}


@pytest.mark.slow
def test_the_index_holds_nothing_the_view_withholds(sweep):
    from agents.recommenders.sniprec import build
    from environments.catalog import Catalog
    from simulators.engine.build import build_setup

    catalog_dir, _ = sweep
    config = OmegaConf.load(next(sweep[1].glob("*/config.yaml")))
    setup = build_setup(config.environment)
    full = Catalog.load(catalog_dir)
    view = setup.agent_catalog("recommender")
    withheld = [r for r in full.reviews if r.id not in {v.id for v in view.reviews}]
    assert withheld, "the protocol withholds the seeker's own review"
    agent = build(view, unit="sentence", progress=False, review_aspects=0)
    texts = set(agent.context.index.texts)
    kept_text = " ".join(r.text for r in view.reviews)
    assert sum(sentence in texts for r in view.reviews for sentence in sentences(r.text)) > len(view.reviews)
    own = [sentence for r in withheld for sentence in sentences(r.text) if sentence not in kept_text]
    assert own and not [sentence for sentence in own if sentence in texts]

"""`build_report` end to end on hand-written logs: files, bad lines, cards, escaping."""

from __future__ import annotations

import io
import json
import re

import pandas as pd
import pytest
from rich.console import Console

from environments.errors import CrsimError
from environments.models import TerminationReason
from simulators.report import build_report
from simulators.report.cards import item_card
from simulators.report.html import script_json

FILES = ("results.csv", "results.md", "paired.csv", "paired.md", "metrics.png", "index.html")


def _console() -> Console:
    return Console(record=True, width=200, file=io.StringIO())


def _page_data(html: str) -> dict:
    match = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', html, re.S)
    assert match, "no embedded episode data"
    return json.loads(match.group(1))


def test_a_sweep_report_writes_every_file_and_finds_the_better_config(report_sweep):
    console = _console()
    report = build_report(report_sweep, console=console)
    out = report_sweep / "report"
    assert report.out == out
    for name in FILES:
        assert (out / name).is_file(), name
    assert (out / "plot-hits_at_10.png").is_file()
    results = pd.read_csv(out / "results.csv")
    assert set(results.config) == {"recommender=good", "recommender=bad"}  # shared overrides left out
    paired = pd.read_csv(out / "paired.csv", keep_default_na=False)
    final_mrr = paired[(paired.turn == 3) & (paired.metric == "mrr")].iloc[0]
    assert final_mrr["better"] == "recommender=good" and final_mrr["n_pairs"] == 6
    printed = console.export_text()
    assert "recommender=good" in printed and str(out / "index.html") in printed
    data = _page_data((out / "index.html").read_text())
    assert len(data["episodes"]) == 12
    accepted = [e for e in data["episodes"] if e["termination"] == "accepted"]
    assert [e["final_rank"] for e in accepted] == [1]
    first = next(e for e in data["episodes"] if e["key"] == "0:s0-e00000")  # runs sorted: bad is run 0
    assert [t["evaluation"] for t in first["turns"] if t["role"] == "recommender"] == [
        None, "target rank 20 / 24", "target rank 18 / 24", "target rank 15 / 24"]


def test_episode_text_cannot_inject_markup(report_sweep):
    build_report(report_sweep, console=_console())
    html = (report_sweep / "report" / "index.html").read_text()
    assert "onerror" in html  # the text is there ...
    assert "<img src=x" not in html and "window.__xss=2</script>" not in html  # ... but never as markup
    assert html.count("</script>") == 2  # only the data and code elements end
    data = _page_data(html)
    assert any("<img src=x" in t["text"] for e in data["episodes"] for t in e["turns"])
    assert script_json({"a": "</script>&"}) == '{"a":"\\u003c/script\\u003e\\u0026"}'


def test_cut_and_wrong_schema_lines_are_reported_with_file_and_line(tmp_path, write_run_fn, dialogue_episode_fn):
    episodes = [dialogue_episode_fn(i, [3, 1]) for i in range(4)]
    good_line = episodes[0].model_dump_json()
    wrong_schema = json.loads(good_line)
    del wrong_schema["termination"]
    bad_version = {**json.loads(good_line), "schema_version": 99}
    run = write_run_fn(tmp_path / "run", episodes,
                       extra_lines=[good_line[: len(good_line) // 2], json.dumps(wrong_schema), json.dumps(bad_version)])
    with (run / "llm_calls.jsonl").open("w") as handle:
        handle.write('{"episode_id": "s0-e00000", "step": "x"}\n{"episode_id": "s0-e0\n')
    console = _console()
    report = build_report(run, console=console)
    log = run / "episodes.jsonl"
    found = {(p.path, p.line) for p in report.problems}
    assert found == {(log, 5), (log, 6), (log, 7), (run / "llm_calls.jsonl", 2)}
    printed = console.export_text()
    assert f"skipped {log}, line 5: not valid JSON" in printed
    assert f"skipped {log}, line 6: field 'termination'" in printed
    assert f"skipped {log}, line 7: episode schema version 99" in printed
    results = pd.read_csv(report.out / "results.csv")
    assert (results.n == 4).all()  # the valid lines are still used
    html = (report.out / "index.html").read_text()
    assert f"skipped {log}, line 6" in html


def test_dialogues_without_rankings_get_a_note_instead_of_a_table(tmp_path, write_run_fn, dialogue_episode_fn):
    episodes = [dialogue_episode_fn(i, [2]).model_copy(update={"evaluations": [], "targets": [],
                                                               "termination": TerminationReason.seeker_quit})
                for i in range(3)]
    log = write_run_fn(tmp_path / "imported", episodes) / "episodes.jsonl"
    dialogues = log.rename(tmp_path / "imported" / "dialogues.jsonl")
    report = build_report(dialogues, console=_console())
    assert report.out == tmp_path / "imported" / "report"
    assert not (report.out / "metrics.png").exists()
    html = (report.out / "index.html").read_text()
    assert 'id="no-scores"' in html and 'id="results-table"' not in html
    assert "nothing to score" in (report.out / "results.md").read_text()
    assert len(_page_data(html)["episodes"]) == 3


def test_cards_come_from_catalog_option_or_run_config(report_sweep, tiny_catalog_dir, tiny_catalog, tmp_path,
                                                      write_run_fn, dialogue_episode_fn):
    report = build_report(report_sweep, tmp_path / "with-option", catalog=tiny_catalog_dir, console=_console())
    cards = _page_data((report.out / "index.html").read_text())["cards"]
    assert cards["c0"]["i05"] == item_card(tiny_catalog.item("i05"))
    assert set(cards["c0"]) == {"i00", "i01", "i02", "i03", "i05"}  # only items the episodes mention

    environment = {"_target_": "environments.single_target.build_single_target",
                   "catalog": str(tiny_catalog_dir), "target_pool_size": 5}
    run = write_run_fn(tmp_path / "configured", [dialogue_episode_fn(0, [1])],
                       config={"max_turns": 1, "seed": 0, "environment": environment})
    report = build_report(run, console=_console())
    assert _page_data((report.out / "index.html").read_text())["cards"]["c0"]["i05"]["title"] == "Place 05"

    broken = {**environment, "catalog": str(tmp_path / "gone")}
    write_run_fn(run, [dialogue_episode_fn(0, [1])], config={"max_turns": 1, "seed": 0, "environment": broken})
    report = build_report(run, console=_console())
    assert any("could not load the catalog" in note for note in report.notes)
    episode = _page_data((report.out / "index.html").read_text())["episodes"][0]
    assert episode["catalog"] is None  # cards show ids only; the report is still written


def test_a_bad_catalog_option_or_metric_is_a_user_error(report_sweep, tmp_path):
    with pytest.raises(CrsimError):
        build_report(report_sweep, catalog=tmp_path / "missing", console=_console())
    with pytest.raises(CrsimError, match="unknown metric"):
        build_report(report_sweep, metrics=["hits@10", "recall"], console=_console())

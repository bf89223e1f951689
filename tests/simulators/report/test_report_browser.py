"""The HTML report in a real headless browser: Debian's chromium driven by playwright.

Never `playwright install` (it downloads browsers); `make setup-browser` installs Debian's
chromium, and a missing one fails this test rather than skipping it, so CI cannot pass
without having looked at the page. The background-networking flags keep chromium from
hammering a closed network at start-up.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from simulators.report import build_report

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture
def page():
    assert CHROMIUM.is_file(), f"{CHROMIUM} is missing: run `make setup-browser` (apt-get install chromium)"
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            yield browser.new_page(viewport={"width": 1400, "height": 1000})
        finally:
            browser.close()


def test_report_page_loads_renders_and_shows_a_transcript(report_sweep, tiny_catalog_dir, tmp_path, page):
    report = build_report(report_sweep, tmp_path / "report", catalog=tiny_catalog_dir)
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))

    page.goto((report.out / "index.html").resolve().as_uri())
    page.wait_for_load_state("load")

    assert page.locator("#results-table tbody tr").count() == 6  # 2 configs x 3 turns
    assert page.locator("#paired-table tbody tr").count() == 3
    widths = page.eval_on_selector_all("#plots img", "imgs => imgs.map(i => i.complete ? i.naturalWidth : 0)")
    assert widths and min(widths) > 0
    assert page.locator("#episode-rows tr").count() == 12

    page.select_option("#filter-outcome", "accepted")
    assert page.locator("#episode-rows tr").count() == 1
    page.select_option("#filter-outcome", "")
    page.select_option("#filter-config", "recommender=good")
    assert page.locator("#episode-rows tr").count() == 6

    page.locator('#episode-rows tr[data-key="1:s0-e00000"]').click()
    transcript = page.locator("#transcript")
    transcript.get_by_text("Something italian please, episode 0 turn 2.").wait_for()
    assert transcript.locator(".card.target").first.inner_text().startswith("Place 05")
    assert "after this turn: target rank 2 / 24" in transcript.inner_text()
    transcript.locator("details.llm-calls > summary").click()
    assert transcript.locator("details.call").count() == 2
    assert "stub-model · ok · 12 in / 5 out tokens · $0.0004" in transcript.locator("details.call").first.inner_text()
    page.screenshot(path=str(tmp_path / "episode.png"), full_page=True)

    page.locator('#episode-rows tr[data-key="1:s0-e00004"]').click()  # its seeker lines try to inject markup
    transcript.get_by_text('<img src=x onerror="window.__xss=1">', exact=False).first.wait_for()
    assert page.evaluate("window.__xss === undefined")
    page.screenshot(path=str(tmp_path / "report.png"), full_page=True)
    assert (tmp_path / "episode.png").stat().st_size > 10_000
    assert errors == []

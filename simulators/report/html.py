"""The static HTML report: one self-contained `index.html` that opens from disk.

Everything is inside the file (CSS, the browser's JS, plots as base64 PNGs, the episode
data as JSON in a `<script type="application/json">` tag), so it can be mailed or copied
alone and opened via file:// with no server and no network. Jinja2 autoescapes every
value put into markup; the only unescaped insertions are the JSON (made safe for a
script element by `script_json`) and our own JS file.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

TEMPLATES = Path(__file__).parent / "templates"


@dataclass
class PageContent:
    """What the page shows; rows come from `tables.wide_rows` / `paired.paired_wide_rows`."""

    title: str
    source: str
    metrics: list[str]
    results_rows: list[dict[str, Any]]
    has_scores: bool
    paired_rows: list[dict[str, Any]]
    paired_note: str
    plots: list[tuple[str, Path]]
    episodes: list[dict[str, Any]]
    cards: dict[str, dict[str, Any]]
    n_configs: int
    notes: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    validity_columns: list[str] = field(default_factory=list)  # `crsim validate`'s table, when the run has one
    validity_rows: list[list[str]] = field(default_factory=list)
    validity_plot: Path | None = None


def script_json(data: Any) -> str:
    """JSON that cannot end the script element it sits in, whatever text it holds.

    `<`, `>` and `&` become \\u escapes (still the same JSON), so `</script>` or `<!--`
    in an LLM's answer stays data. NaN is refused: JSON.parse would reject the page.
    """
    text = json.dumps(data, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def png_data_uri(path: Path) -> str:
    """A PNG as a data: URI, so the page carries its plots."""
    return "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode("ascii")


def _environment() -> Environment:
    return Environment(
        loader=FileSystemLoader(TEMPLATES),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        keep_trailing_newline=True,
    )


def _script() -> str:
    script = (TEMPLATES / "browser.js").read_text(encoding="utf-8")
    if "</script" in script.lower():  # would end the inline script element early
        raise ValueError("browser.js must not contain '</script'")
    return script


def render_page(content: PageContent) -> str:
    """The page's HTML text."""
    template = _environment().get_template("report.html.j2")
    return template.render(
        title=content.title,
        source=content.source,
        metrics=content.metrics,
        results_rows=content.results_rows,
        has_scores=content.has_scores,
        paired_rows=content.paired_rows,
        paired_note=content.paired_note,
        plots=[(caption, png_data_uri(path)) for caption, path in content.plots],
        notes=content.notes,
        problems=content.problems,
        n_configs=content.n_configs,
        n_episodes=len(content.episodes),
        validity_columns=content.validity_columns,
        validity_rows=content.validity_rows,
        validity_plot=png_data_uri(content.validity_plot) if content.validity_plot else None,
        data_json=script_json({"episodes": content.episodes, "cards": content.cards}),
        script=_script(),
    )


def write_page(content: PageContent, path: Path) -> Path:
    """Write `index.html` (parents created); returns the path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_page(content), encoding="utf-8")
    return path

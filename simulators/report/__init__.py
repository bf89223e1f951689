"""`crsim report`: results tables with CIs, paired comparisons, plots and a static HTML page.

Modules, one job each: `tables` (per-configuration results, CSV + Markdown), `paired`
(paired-bootstrap differences between configurations), `figures` (metric-vs-turn PNGs),
`cards` (item cards from the catalog), `browser` (episode data for the page), `html`
(the self-contained `index.html`) and `build` (runs them in order).
"""

from simulators.report.build import Report, build_report

__all__ = ["Report", "build_report"]

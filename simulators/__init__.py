"""How a run happens and what is made of it: `engine/` (build, episodes, runner, logs),
`metrics/` (per turn), `evaluators/` (post-run), `results/` (tables, CIs, plots, usage),
`offline/` (evaluation outside `crsim run`), `replay/`, `report/` and the `crsim` CLI."""

from environments.moved import alias_moved_modules

# Release 0.2's moves; the old paths import (with a warning) until 0.3.
alias_moved_modules({
    "simulators.episode": "simulators.engine.episode",
    "simulators.runner": "simulators.engine.runner",
    "simulators.workers": "simulators.engine.workers",
    "simulators.ray_workers": "simulators.engine.ray_workers",
    "simulators.logs": "simulators.engine.logs",
    "simulators.build": "simulators.engine.build",
    "simulators.run_keys": "simulators.engine.run_keys",
    "simulators.config_hash": "simulators.engine.config_hash",
    "simulators.judge": "simulators.evaluators.judge",
    "simulators.shopping_eval": "simulators.evaluators.shopping",
    "simulators.rouge": "simulators.evaluators.rouge",
    "simulators.stats": "simulators.results.stats",
    "simulators.usage": "simulators.results.usage",
    "simulators.plots": "simulators.results.plots",
    "simulators.sweep_summary": "simulators.results.sweep",
    "simulators.runlog": "simulators.results.runlog",
    "simulators.evaluation_text": "simulators.results.evaluation_text",
    "simulators.dialogue_eval": "simulators.offline.dialogues",
    "simulators.snippet_eval": "simulators.offline.snippets",
    "simulators.fidelity": "simulators.offline.fidelity",
    "simulators.shopping_generate": "simulators.offline.shopping_generate",
    "simulators.evaluation.cpcd_data": "simulators.offline.cpcd.data",
    "simulators.evaluation.cpcd_eval": "simulators.offline.cpcd.evaluate",
    "simulators.evaluation.cpcd_protocol": "simulators.offline.cpcd.protocol",
    "simulators.evaluation.cpcd_queries": "simulators.offline.cpcd.queries",
    "simulators.evaluation.cpcd_retrievers": "simulators.offline.cpcd.retrievers",
    "simulators.evaluation": "simulators.offline.cpcd",
})

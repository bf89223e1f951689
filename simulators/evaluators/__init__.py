"""Post-run evaluators: scores computed once a run's episodes are all logged.

`base` builds and runs them (`evaluators:` in the config, each a `_target_` with a `name`
and `evaluate(episodes, setup)`); `judge` is PEPPER's rubric judge, `shopping` TRACER's
CQG and CPR, `rouge` the ROUGE they use. Per-turn metrics are `simulators.metrics`.
"""

from environments.moved import moved_names

# release 0.1's names of the old `simulators/evaluators.py`, until 0.3
__getattr__ = moved_names("simulators.evaluators", "simulators.evaluators.base", globals())

"""Results of runs: per-turn tables with bootstrap CIs (`table`, `stats`), LLM usage
(`usage`), metric-vs-turn plots (`plots`), a sweep's comparison (`sweep`), logged runs read
back (`runlog`) and per-turn evaluations in words (`evaluation_text`)."""

from environments.moved import moved_names

# release 0.1's names of the old `simulators/results.py`, until 0.3
__getattr__ = moved_names("simulators.results", "simulators.results.table", globals())

"""Judges' steps: PEPPER's rubric judge (`rubric`) and the CRS Arena aspect judges (`aspects`)."""

from environments.moved import moved_names

# `agents.steps.judge` was one module until 0.2.7: its names still resolve here, with a
# warning naming their new module, until 0.3.
__getattr__ = moved_names("agents.steps.judge", "agents.steps.judge.rubric", globals())

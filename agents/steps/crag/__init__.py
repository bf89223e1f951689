"""CRAG's steps: entity linking with attitudes, reflections, recommending and reranking."""

from environments.moved import moved_names

# `agents.steps.crag` was one module until 0.2.7: its names still resolve here, with a
# warning naming their new module, until 0.3.
__getattr__ = moved_names("agents.steps.crag", "agents.steps.crag.steps", globals())

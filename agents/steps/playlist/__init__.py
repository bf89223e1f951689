"""The playlist (CPCD) curator's and listener's steps: search queries, picks, the listener's moves."""

from environments.moved import moved_names

# `agents.steps.playlist` was one module until 0.2.7: its names still resolve here, with a
# warning naming their new module, until 0.3.
__getattr__ = moved_names("agents.steps.playlist", "agents.steps.playlist.steps", globals())

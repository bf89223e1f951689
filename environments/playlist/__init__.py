"""Playlist curation (CPCD's task as a simulation): the state is a set of tracks.

`environment` (what Hydra builds: `build_playlist`, the goal sets and what the seeker is
told of them; one episode: the curator shows and adds, the seeker reacts and removes),
`views` (the curator's `Curation` move and both roles' observations) and `goals` (goal
sets from a music world's themes or an import's conversations, and the seeker's brief).
"""

from environments.playlist.environment import (
    DISCLOSURES, FEEDBACK_KINDS, SEEKER_ENDINGS, PlaylistEnvironment, PlaylistSetup, build_playlist,
)
from environments.playlist.goals import PlaylistGoal, ThemeBrief, load_goals
from environments.playlist.views import Curation, CuratorObservation, PlaylistSeekerObservation

__all__ = ["DISCLOSURES", "FEEDBACK_KINDS", "SEEKER_ENDINGS", "Curation", "CuratorObservation", "PlaylistEnvironment",
           "PlaylistGoal", "PlaylistSeekerObservation", "PlaylistSetup", "ThemeBrief", "build_playlist", "load_goals"]

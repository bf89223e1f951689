"""crsim environments: catalogs, item and dialogue interfaces, worlds, dataset adapters, and
one package per protocol (`single_target`, `multi_target`, `playlist`, `shopping`)."""

from environments.moved import alias_moved_modules

alias_moved_modules({
    "environments.holdout": "environments.single_target.holdout",
    "environments.playlist_goals": "environments.playlist.goals",
})

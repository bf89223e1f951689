"""Single-target recommendation (the SnipRec protocol): each episode hides one target item.

`environment` (what Hydra builds: `build_single_target`, the setup with its target pool
and views, and one episode), `profile` (what the target-biased seeker is given) and
`holdout` (which reviewed items can be targets); `grounded` runs the protocol once per
real conversation of an imported corpus (`environment=grounded`). Moves, observations and
the per-turn ranks are shared with the multi-target protocol (`environments.target_ranking`).
"""

from environments.single_target.environment import (
    DEFAULT_OPENING, SingleTargetEnvironment, SingleTargetSetup, build_single_target, target_weights,
)
from environments.single_target.grounded import GroundedSetup, build_grounded
from environments.single_target.holdout import TargetSlot, draw_target_pool
from environments.single_target.profile import PersonContext, TargetBiasedProfile

__all__ = ["DEFAULT_OPENING", "GroundedSetup", "PersonContext", "SingleTargetEnvironment", "SingleTargetSetup",
           "TargetBiasedProfile", "TargetSlot", "build_grounded", "build_single_target", "draw_target_pool",
           "target_weights"]

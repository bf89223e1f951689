"""Multi-target preference elicitation (the PEPPER protocol): one episode per user, whose
history splits into seen items and held-out targets.

`environment` (what Hydra builds: `build_multi_target`, the setup with its user pool and
views, and one episode), `profile` (what a PEPPER seeker is given) and `sampling` (which users, and
how each history splits). Moves, observations and the per-turn ranks are shared with the
single-target protocol (`environments.target_ranking`).
"""

from environments.multi_target.environment import (
    DEFAULT_OPENING, DISCLOSURES, MultiTargetEnvironment, MultiTargetSetup, build_multi_target,
)
from environments.multi_target.profile import DisclosedTarget, PepperProfile, SeenReview
from environments.multi_target.sampling import TARGET_RULES, UserSlot, split_history

__all__ = ["DEFAULT_OPENING", "DISCLOSURES", "TARGET_RULES", "DisclosedTarget", "MultiTargetEnvironment",
           "MultiTargetSetup", "PepperProfile", "SeenReview", "UserSlot", "build_multi_target", "split_history"]

"""Measure seekers only on people their policy was not fitted on.

A seeker's fitted policy (`seeker.policy`, `auto` by default: the ReDial file shipped in
agents/policies/) names the corpus splits it came from. A validity figure computed on those
splits would measure the seeker on the people it was built from, so `crsim validate
ranking|reactions` refuses it, naming the file and the split.
"""

from __future__ import annotations

from collections.abc import Sequence

from environments.errors import CrsimError


def policy_setting(overrides: Sequence[str]) -> str | None:
    """The `seeker.policy` an override list sets (None when it sets none: the config's `auto`)."""
    keys = ("seeker.policy=", "+seeker.policy=")
    return next((o.split("=", 1)[1] for o in reversed(overrides) if o.startswith(keys)), None)


def refuse_training_split(split: str | None, overrides: Sequence[str] = ()) -> None:
    """Raise when `split` is one the seeker's fitted policy was fitted on."""
    from agents.seekers.decisions import GROUNDED_POLICY, policy_path
    from environments.acts.policy import load_policy

    setting = policy_setting(overrides)
    if split is None or setting in ("null", "None", ""):
        return
    path = policy_path(GROUNDED_POLICY if setting in (None, "auto") else setting)
    if not path.is_file():
        return  # a missing file is the seeker's own error, with its own message
    policy = load_policy(path)
    if split in policy.source.splits:
        raise CrsimError(f"--split {split}: the seeker's policy {path} was fitted on that split "
                         f"({policy.source.corpus}); measure on conversations it was not fitted on, or give "
                         "--set seeker.policy=FILE fitted on other splits (crsim data policy)")

"""Dialogue acts: what a turn of a conversational recommendation dialogue does.

One small inventory for both sides (`inventory.py`), a transparent labeller that reads
corpus turns into acts (`labeller.py`), and the seeker policy fitted on labelled training
dialogues (`policy.py`). Simulated seekers choose their next act from a fitted policy, and
`crsim validate` compares the acts of simulated and real turns.
"""

from environments.acts.inventory import RECOMMENDER_ACTS, SEEKER_ACTS, RecommenderAct, SeekerAct

__all__ = ["RECOMMENDER_ACTS", "SEEKER_ACTS", "RecommenderAct", "SeekerAct"]

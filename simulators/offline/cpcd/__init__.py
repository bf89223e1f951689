"""Offline evaluations of recorded dialogues (today: CPCD's turn-level retrieval protocol).

Unlike `crsim run`, nothing is simulated here: a retriever is scored on the turns of
real conversations, with the dataset's own protocol, so crsim's numbers can be put next
to a paper's.
"""

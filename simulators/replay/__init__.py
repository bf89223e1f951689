"""Replaying logged episodes: re-score, render, re-execute, and re-run one side (see `crsim replay`)."""

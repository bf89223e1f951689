"""Seeker (user) simulators."""

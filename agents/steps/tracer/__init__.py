"""TRACER's steps: the seller's and customer's utterances, state tracking, query generation."""

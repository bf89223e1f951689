"""Baseline recommenders (popularity, BM25, dense) and the retrieval graph they share."""

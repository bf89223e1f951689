"""Seller agents (shopping protocol)."""

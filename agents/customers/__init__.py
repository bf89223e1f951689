"""Customer agents (shopping protocol)."""

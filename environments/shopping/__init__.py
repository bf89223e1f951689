"""The shopping protocol (TRACER): synthetic product worlds, preferences, the decision-tree
planner and the seller/customer environment. See `environment.py`."""

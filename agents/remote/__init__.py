"""Agents that live in another process: a conversational recommender (or a seeker) behind
HTTP, spoken to in crsim's own JSON protocol or in the shape UserSimCRS's and CRS Arena's
CRS wrappers use (`protocol.py`), over a client with timeouts, retries and a concurrency
limit per server (`client.py`). `crsim serve` (simulators/serve) is the other end."""

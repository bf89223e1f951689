"""The parts of `scripts/bench_llm.py`, which says what they measure and how: the stub
server it measures against (`server`, a process of its own), part 1, the language-model
clients' throughput and crsim's overhead per call, with the timing both parts use
(`clients`), and part 2, a sweep whose calls are all cache hits against the same episodes
offline (`sweep`)."""

"""Evaluation outside `crsim run`: recommenders on logged dialogues (`dialogues`), CPCD's
retrieval protocol (`cpcd`), an LLM judge against people's labels of CRS Arena
conversations (`judge`), snippet extraction against a world's truth (`snippets`), the
seeker's fidelity to its target (`fidelity`) and TRACER's dialogue generation
(`shopping_generate`)."""

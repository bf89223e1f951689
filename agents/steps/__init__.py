"""Language steps: typed functions with an LLM and an offline implementation, by owner.

`base.py` (the `LanguageStep` contract) and `text.py` (text helpers) are the bottom layer;
`seeker/` and `recommender/` hold the steps any method's agents use; one package per method
(`pepper/`, `sniprec/`, `crag/`, `playlist/`, `tracer/`, `judge/`) holds that method's own
steps. A package imports only from the layers below it, never another method's package
(`tests/test_layers.py` checks it), so a method's steps can be read, changed or removed alone.
"""

from environments.moved import alias_moved_modules

# Release 0.2.7's moves; the old paths import (with a warning) until 0.3. The three old modules
# that share a name with a method package (`crag`, `playlist`, `judge`) forward their names
# from the package's `__init__` instead.
alias_moved_modules({
    "agents.steps.seeker_answer": "agents.steps.seeker.answer",
    "agents.steps.seeker_move": "agents.steps.seeker.move",
    "agents.steps.seeker_talk": "agents.steps.seeker.talk",
    "agents.steps.review_facts": "agents.steps.seeker.review_facts",
    "agents.steps.summarize": "agents.steps.seeker.summarize",
    "agents.steps.value_lexicon": "agents.steps.seeker.value_lexicon",
    "agents.steps.clarify": "agents.steps.recommender.clarify",
    "agents.steps.item_answer": "agents.steps.recommender.item_answer",
    "agents.steps.preferences": "agents.steps.pepper",
    "agents.steps.snippets": "agents.steps.sniprec.snippets",
    "agents.steps.entity_linking": "agents.steps.crag.entity_linking",
    "agents.steps.attitude": "agents.steps.crag.attitude",
    "agents.steps.relevance": "agents.steps.crag.relevance",
    "agents.steps.shopping": "agents.steps.tracer.dialogue",
    "agents.steps.shopping_phrases": "agents.steps.tracer.phrases",
    "agents.steps.shopping_query": "agents.steps.tracer.query",
    "agents.steps.shopping_single_pass": "agents.steps.tracer.single_pass",
    "agents.steps.aspect_judge": "agents.steps.judge.aspects",
})

"""Validity: how close simulated seekers are to people (`crsim validate`).

`turns` reads seeker turns out of runs and imported corpora alike, `language` holds the
text figures (DESIGN §8: words, questions, template rate, distinct-n, stated likes),
`items` finds item names and the catalog's rare vocabulary, `figures` computes every
figure with a bootstrap 95% CI over dialogues, `classifier` says how well a classifier
tells real turns from simulated ones, and `compare` puts runs beside the people.
"""

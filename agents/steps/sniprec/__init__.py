"""SnipRec's steps: review snippets, query snippets with sentiment, expansion and NLI checks."""

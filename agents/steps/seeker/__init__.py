"""Steps the seeker agents of every method use: answering, talk moves, what it knows of items."""

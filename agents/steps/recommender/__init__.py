"""Steps the recommenders of every method use: the clarifying question, answers about shown items."""

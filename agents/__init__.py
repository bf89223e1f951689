"""crsim agents: recommenders, seekers, sellers, customers and their language steps."""

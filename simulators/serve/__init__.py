"""`crsim serve`: any crsim agent behind HTTP, in the protocol `recommender=http` speaks."""

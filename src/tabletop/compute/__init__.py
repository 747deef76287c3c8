"""Running batches of games: local worker processes or a Ray cluster (``docs/cluster.md``)."""

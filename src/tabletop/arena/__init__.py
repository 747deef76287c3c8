"""Playing games between agents: matches, tournaments, ratings and benchmarks."""

"""What the benchmarks in scripts/ hear and the tests check: trials, rooms, conditions and recordings."""

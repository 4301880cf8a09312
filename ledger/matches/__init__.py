"""Matches: creation, seat joins, seed commit-reveal, play on the engine, resignation and turn timeouts."""

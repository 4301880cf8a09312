"""Benchmarks behind `metaledger bench`; each module has `run(...) -> dict`."""

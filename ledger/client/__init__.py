"""The HTTP client of the MetaLedger API (used by the CLI, the benchmarks and the tests)."""

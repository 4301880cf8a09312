"""Audit: bundle export from the operator database, and offline verification of a bundle against the chain."""

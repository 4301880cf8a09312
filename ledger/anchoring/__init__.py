"""Anchoring: batches of signed results, their Merkle roots on MatchLedger, confirmations and proofs."""

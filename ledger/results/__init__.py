"""Signed results: the transcript, the operator's EIP-712 signature, the outbox row for anchoring."""

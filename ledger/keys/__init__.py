"""Operator keys per role: the signer interface, encrypted keystore files, and which process may hold which key."""

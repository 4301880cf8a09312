"""The protocol, pure (no database, no network): token ids, deck hashes, seeds, EIP-712, signatures, Merkle batches, SIWE messages, the bundle format, hex."""

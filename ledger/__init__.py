"""MetaLedger's domain: persistence, the chain client, signing, Merkle batches, verification."""

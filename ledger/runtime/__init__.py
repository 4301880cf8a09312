"""The per-process context the services run in: database engine, chain client, signer, match state cache; the reports of a pass."""

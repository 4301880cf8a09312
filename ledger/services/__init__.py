"""Services behind the API: sign-in, catalogue, decks, matches, results.

Each service function takes a database session (the request's transaction; services never
commit) and the process's `Context` (chain client, signer, settings, caches)."""

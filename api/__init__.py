"""The FastAPI app: sign-in, collections, decks, matches, results, audit."""

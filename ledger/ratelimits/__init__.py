"""Per-client-address rate limits of the unauthenticated endpoints, counted in the database."""

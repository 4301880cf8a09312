"""The stack's liveness: worker heartbeats, the one scheduler's lock, and the /healthz report."""

"""The Celery app and its tasks: anchoring results, indexing chain events."""

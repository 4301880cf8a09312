"""Alembic revision scripts of the one linear migration history."""

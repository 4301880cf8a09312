"""The engine's version, recorded in every transcript (bump on any change of behaviour)."""

ENGINE_VERSION = "1.2.0"

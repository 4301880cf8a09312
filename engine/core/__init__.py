"""The engine core shared by every game: PRNG, actions, the state interface, the game registry,
errors, effects, catalogues, transcripts, scenarios and bots.

Other folders import the engine through `engine` (engine/__init__.py), not from here.
"""

"""Deck commitments: deck rules, then ownership at a pinned block, then copies free of other live matches."""

"""Per-card tables of the MetaX catalogue, indexed by card number (filled by engine.metax.cards)."""

from __future__ import annotations

from typing import Any

from engine.core.effects import Effect

KIND: list[int] = []
NAME: list[str] = []
TRAIT: list[str | None] = []
#: characters: printed ranks (STR, INT, SPE), 0 = no such stat
CSTATS: list[tuple[int, int, int]] = []
#: battle cards: the stats printed on the card (indexes)
BSTATS: list[tuple[int, ...]] = []
RANK: list[int] = []
#: characters: MP gained when played; events: MP cost; battle cards: + gain / - cost
MP: list[int] = []
EFFECT_KIND: list[str] = []
EFFECT: list[Effect[Any] | None] = []
#: battle cards with no printed effect
BASIC: list[bool] = []
TKO_EXTRA: list[int] = []
HP_EXTRA: list[int] = []
#: continuous stat bonuses a character grants: (stat, n, trait or None, others-only)
BONUS: list[tuple[int, int, str | None, bool] | None] = []

"""The greedy bot's evaluation of a WISH state, from what one player may see."""

from __future__ import annotations

from engine.core.state import GameState
from engine.metaversus.cards import CARDS
from engine.metaversus.state import WishBoard


def heuristic(state: GameState, player: int) -> float:
    """Greedy-bot score: HP lead, the cards owned, Wishing Stars, and this turn's resources.

    Reads only what `player` may see: public values (HP, stars, this turn's AP, Gems, buys and
    damage) and its own cards. "Owned" sums the costs of the player's own hand, deck, discard
    and play area: a total the player knows (every card it gained was gained in the open) and
    that does not depend on the order of its deck. Nothing of the opponent's cards is read.
    """
    assert isinstance(state, WishBoard)
    s = state
    opp = 1 - player
    cost = CARDS.cost
    owned = sum(cost[c] for z in (s.hand, s.deck, s.disc, s.play) for c in z[player])
    score = 2.0 * (s.hp[player] - s.hp[opp]) + 0.6 * owned + 0.3 * s.stars[player]
    if s.active == player and not s.over:
        score += 2.0 * s.pool + 0.5 * (s.gems + s.ap) + 0.2 * (s.buys + len(s.hand[player]))
    return score

"""The greedy bot's evaluation of a MetaMasters state, from what one player may see."""

from __future__ import annotations

from engine.core.actions import Action
from engine.core.state import GameState
from engine.metamasters.cards import CARDS, K_ACTOR
from engine.metamasters.state import MetaMastersBoard

#: what the heuristic credits an opposing face-down Actor with: the catalogue's average Actor
_HIDDEN_ACTOR = sum(
    max(c.base_ego, 0) * 0.5 + max(c.base_int, 0) * 0.3 for c in CARDS if c.kind == K_ACTOR
) / max(1, sum(1 for c in CARDS if c.kind == K_ACTOR))


def heuristic(state: GameState, player: int) -> float:
    """Greedy-bot score: Tokens dominate, then board strength, then cards in hand.

    Reads only what `player` may see: its own cards, the opponent's face-up Actors, and counts
    (Tokens, Specials, hand and deck sizes). An opposing face-down Actor scores the catalogue
    average; the opponent's hand, face-down cards and deck order are never read.
    """
    assert isinstance(state, MetaMastersBoard)
    s = state
    score = 0.0
    faceup = s.faceup
    for q, sign in ((player, 1.0), (1 - player, -1.0)):
        board = 0.0
        for i in s.actors[q]:
            if i < 0:
                continue
            if q == player or faceup[i]:
                board += 2.0 + max(s.ego(i), 0) * 0.5 + max(s.intel(i), 0) * 0.3
            else:  # an opposing face-down Actor: what it is is hidden
                board += 2.0 + _HIDDEN_ACTOR
        board += sum(0.5 for i in s.specials[q] if i >= 0)
        score += sign * (
            20.0 * len(s.tokens[q]) + board + 0.4 * len(s.hand[q]) + 0.05 * len(s.deck[q])
        )
    return score


def bot_preferences(state: GameState, actions: list[Action]) -> list[Action]:
    """The actions a bot considers: no second change of one Actor's battle position in a turn.

    The rulebook sets no limit on position changes, so a bot switching an Actor back and forth
    could keep a Main phase going for ever; whether an Actor changed position is public.
    """
    assert isinstance(state, MetaMastersBoard)
    changed = state.pos_changed
    return [a for a in actions if a.kind != "position" or not changed[a.args[0]]]

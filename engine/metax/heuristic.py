"""The greedy bot's evaluation of a MetaX state, from what one player may see."""

from __future__ import annotations

from engine.core.state import GameState
from engine.metax.cards import BATTLE, CARDS
from engine.metax.state import MetaXBoard

#: the value of a card in the opponent's (hidden) hand: a battle card (1.5) or another card
#: (0.8), weighted by the starter decks' half-and-half mix
_HIDDEN_CARD = 1.15


def heuristic(state: GameState, player: int) -> float:
    """Greedy-bot evaluation from `player`'s side: VP, board, prepped defenders, cards, MP.

    Reads only what `player` may see: its own hand, the public zones (characters, their damage
    and state, attacks, MP) and counts (VP piles, deck and opponent hand sizes); never the
    opponent's hand or any deck order. Weights were tuned against the random bot on mirrored
    starter decks, with the greedy bot's determinized lookahead.
    """
    assert isinstance(state, MetaXBoard)
    st = state
    cards = st.cards
    score = 0.0
    for p, sign in ((player, 1.0), (1 - player, -1.0)):
        s = 10.0 * len(st.vps[p])
        for slot, c in enumerate(st.chars[p]):
            if c >= 0:
                s += 3.0 + 0.5 * st.max_rank(c) - 1.0 * len(st.dmg[p][slot])
                if not st.pushed[p][slot]:
                    # can defend (or attack next turn); 1.5 before the lookahead was
                    # determinized, when the bot pushed a drawing character knowing its draw
                    s += 1.0
        hand = st.hands[p]
        if p == player:
            battle_cards = sum(1 for i in hand if CARDS.kind[cards[i]] == BATTLE)
            s += 0.8 * (len(hand) - battle_cards) + 1.5 * battle_cards
        else:  # the opponent's hand is hidden: only its size counts
            s += _HIDDEN_CARD * len(hand)
        s += 0.3 * st.mp[p]
        s += 0.1 * min(len(st.decks[p]), 10)
        if p == st.active:
            # a declared attack that is not (yet) defended is a VP in waiting
            s += sum(6.0 for a in st.attacks if a[5] < 0 and not a[7])
        score += sign * s
    return score

"""What a MetaMasters player cannot see, re-dealt (`determinize`): the states the greedy bot
looks ahead on, and the second state of the hidden-information tests."""

from __future__ import annotations

from engine.core.prng import Prng
from engine.core.state import GameState
from engine.metamasters.cards import CARDS, K_ACTOR, K_SPECIAL, K_TOKEN
from engine.metamasters.encoding import MetaMastersState

#: what an unseen card of the opponent is drawn from (its deck list is private): any card of
#: the catalogue but a Token in a hand or a deck, an Actor or a Special face-down in its zone
_IN_HAND_OR_DECK = tuple(c.index for c in CARDS if c.kind != K_TOKEN)
_ACTORS = tuple(c.index for c in CARDS if c.kind == K_ACTOR)
_SPECIALS = tuple(c.index for c in CARDS if c.kind == K_SPECIAL)


def determinize(state: GameState, viewer: int, prng: Prng) -> MetaMastersState:
    """A state `viewer` cannot tell from `state` (the same observation and legal moves) in
    which everything hidden from them is dealt anew from `prng`, whatever the real hidden
    cards are (drawn place by place, in zone order): its own deck shuffled, each
    card in the opponent's hand or deck and each face-down card of the opponent drawn anew
    from the catalogue (a face-down card keeps its kind, which its zone shows), and the PRNG
    reseeded, so draws and shuffles to come are not the match's.
    """
    assert isinstance(state, MetaMastersState)
    s = state.clone()
    me, opp = viewer, 1 - viewer
    # sorted first: the sample depends on what the viewer knows, never on the real order
    s.deck[me].sort()
    prng.shuffle(s.deck[me])
    cid = list(s.cid)
    below = prng.below
    for i in (*s.hand[opp], *s.deck[opp]):
        cid[i] = _IN_HAND_OR_DECK[below(len(_IN_HAND_OR_DECK))]
    faceup = s.faceup
    for row, prior in ((s.actors[opp], _ACTORS), (s.specials[opp], _SPECIALS)):
        for i in row:
            if i >= 0 and not faceup[i]:
                cid[i] = prior[below(len(prior))]
    s.cid = tuple(cid)
    s.prng = Prng(prng.next_u64())
    return s

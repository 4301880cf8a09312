"""What a WISH duelist cannot see, re-dealt (`determinize`): the states the greedy bot looks
ahead on, and the second state of the hidden-information tests."""

from __future__ import annotations

from engine.core.prng import Prng
from engine.core.sampling import dealt, picks
from engine.core.state import GameState
from engine.metaversus.cards import CARDS
from engine.metaversus.encoding import WishState
from engine.metaversus.state import P_BAN, SETUP


def determinize(state: GameState, viewer: int, prng: Prng) -> WishState:
    """A state `viewer` cannot tell from `state` (the same observation and legal moves) in
    which everything hidden from them is dealt anew from `prng`.

    The sample depends only on what the viewer may know and on `prng`: its own deck is
    shuffled; the opponent's hand and deck are dealt anew from the cards they hold together
    (public: every card they hold came in the open, though the observation does not list
    them); the character piles and the neutral pile are shuffled; a setup choice of the
    opponent not yet shown (their selection hand before the hands are passed, their ban,
    their character, their Market picks) is made anew; the PRNG is reseeded, so draws and
    shuffles to come are not the match's.
    """
    assert isinstance(state, WishState)
    s = state.clone()
    me, opp = viewer, 1 - viewer
    s.deck[me] = dealt(s.deck[me], prng)
    pool = dealt(s.hand[opp] + s.deck[opp], prng)
    held = len(s.hand[opp])
    s.hand[opp], s.deck[opp] = pool[:held], pool[held:]
    s.pile = [dealt(s.pile[0], prng), dealt(s.pile[1], prng)]
    s.neutral = dealt(s.neutral, prng)
    if s.phase == SETUP:
        _redeal_setup(s, opp, prng)
    s.rng = Prng(prng.next_u64())
    return s


def _redeal_setup(s: WishState, opp: int, prng: Prng) -> None:
    """Make anew the setup choices of `opp` that the other duelist has not seen."""
    below = prng.below
    top = s.stack[-1] if s.stack else None
    if isinstance(top, list) and top[0] == P_BAN:  # the selection hands are not passed yet
        s.sel[opp] = picks(prng, CARDS.packs, len(s.sel[opp]))
        if s.bans[opp] != -2:
            hand = s.sel[opp]
            bans = [-1, *(k for k in sorted(set(hand)) if any(x != k for x in hand))]
            s.bans[opp] = bans[below(len(bans))]
    if s.chosen[opp] >= 0 and s.char[opp] < 0:
        s.chosen[opp] = s.sel[opp][below(len(s.sel[opp]))]
    if s.char[opp] >= 0 and s.picks[opp]:
        s.picks[opp] = dealt(CARDS.pack_market[s.char[opp]], prng)[: len(s.picks[opp])]

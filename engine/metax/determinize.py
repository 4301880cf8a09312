"""What a MetaX player cannot see, re-dealt (`determinize`): the states the greedy bot looks
ahead on, and the second state of the hidden-information tests."""

from __future__ import annotations

from engine.core.prng import Prng
from engine.core.sampling import dealt, picks
from engine.core.state import GameState
from engine.metax.cards import CARDS
from engine.metax.effects import DECK, MoveChoice
from engine.metax.encoding import MetaXState, static_string
from engine.metax.state import P_CHOICE

#: the cards an unseen card of the opponent is drawn from: the whole catalogue, since the
#: opponent's deck list is private
_PRIOR = tuple(range(len(CARDS.kind)))


def determinize(state: GameState, viewer: int, prng: Prng) -> MetaXState:
    """A state `viewer` cannot tell from `state` (the same observation and legal moves) in
    which everything hidden from them is dealt anew from `prng`.

    The sample depends only on what the viewer may know and on `prng` (never on how the
    hidden cards really lie): the viewer's own unseen cards (its deck and its cards in the
    opponent's VP pile, which no one may look at) are shuffled among those places, or only the
    deck while the viewer is choosing from it (a search shows its contents); the opponent's
    unseen instances (hand, deck, its cards in the viewer's VP pile) are dealt to those places
    anew, each with a card drawn from the catalogue; the PRNG is reseeded, so draws and
    shuffles to come are not the match's.
    """
    assert isinstance(state, MetaXState)
    s = state.clone()
    me, opp = viewer, 1 - viewer
    deck = s.decks[me]
    if _choosing_from_deck(s, me):
        s.decks[me] = dealt(deck, prng)
    else:
        pool = dealt(deck + s.vps[opp], prng)
        s.decks[me] = pool[: len(deck)]
        s.vps[opp] = pool[len(deck) :]
    # which instance sits where is as hidden as the card: the opponent's unseen instances are
    # dealt to the unseen places anew, each with a card drawn for its place
    unseen = (s.hands[opp], s.decks[opp], s.vps[me])
    ids = dealt([i for zone in unseen for i in zone], prng)
    cards = s.cards[:]
    for i, card in zip(ids, picks(prng, _PRIOR, len(ids)), strict=True):
        cards[i] = card
    k = 0
    for zone in unseen:
        zone[:] = ids[k : k + len(zone)]
        k += len(zone)
    s.cards = cards
    s.static = static_string(cards, s.owner)
    s.prng = Prng(prng.next_u64())
    return s


def _choosing_from_deck(s: MetaXState, p: int) -> bool:
    """Whether p is answering an effect's choice among the cards of p's deck."""
    top = s.stack[-1] if s.stack and not s.over else None
    if top is None or top[0] != P_CHOICE or top[1] != p:
        return False
    step = s.pending_choice()[2]
    return isinstance(step, MoveChoice) and step.source == DECK

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
#: the per-instance facts that stay with a place when its instance id is dealt anew
_FACTS = (
    "zone",
    "faceup",
    "pos",
    "set_at",
    "ego_mod",
    "int_mod",
    "attacked",
    "bonus_atk",
    "pos_changed",
    "pos_revert",
    "host",
)


def determinize(state: GameState, viewer: int, prng: Prng) -> MetaMastersState:
    """A state `viewer` cannot tell from `state` (the same observation and legal moves) in
    which everything hidden from them is dealt anew from `prng`, whatever the real hidden
    cards are: its own deck shuffled; the opponent's unseen instances (hand, deck, face-down
    cards) dealt to those places anew, each with a card drawn from the catalogue for its
    place (a face-down card keeps its kind, which its zone shows); the PRNG reseeded, so
    draws and shuffles to come are not the match's.
    """
    assert isinstance(state, MetaMastersState)
    s = state.clone()
    me, opp = viewer, 1 - viewer
    # sorted first: the sample depends on what the viewer knows, never on the real order
    s.deck[me].sort()
    prng.shuffle(s.deck[me])
    faceup = s.faceup
    hidden = [k for k, i in enumerate(s.actors[opp]) if i >= 0 and not faceup[i]]
    hidden_specials = [k for k, i in enumerate(s.specials[opp]) if i >= 0 and not faceup[i]]
    old = [
        *s.hand[opp],
        *s.deck[opp],
        *(s.actors[opp][k] for k in hidden),
        *(s.specials[opp][k] for k in hidden_specials),
    ]
    new = sorted(old)
    prng.shuffle(new)
    _relabel(s, opp, dict(zip(old, new, strict=True)))
    cid = list(s.cid)
    below = prng.below
    for i in (*s.hand[opp], *s.deck[opp]):
        cid[i] = _IN_HAND_OR_DECK[below(len(_IN_HAND_OR_DECK))]
    for k in hidden:
        cid[s.actors[opp][k]] = _ACTORS[below(len(_ACTORS))]
    for k in hidden_specials:
        cid[s.specials[opp][k]] = _SPECIALS[below(len(_SPECIALS))]
    s.cid = tuple(cid)
    s.prng = Prng(prng.next_u64())
    return s


def _relabel(s: MetaMastersState, q: int, new_id: dict[int, int]) -> None:
    """Give each of q's instances `old` the id `new_id[old]` (a permutation of q's hidden
    instances): the facts of a place and every reference to it follow."""
    for name in _FACTS:
        facts = getattr(s, name)
        moved = {old: facts[old] for old in new_id}
        for old, value in moved.items():
            facts[new_id[old]] = value
    host = s.host
    for link in s.links[q]:
        host[link] = new_id.get(host[link], host[link])
    for name in ("hand", "deck", "actors", "specials"):
        zone = getattr(s, name)
        zone[q] = [new_id.get(i, i) for i in zone[q]]

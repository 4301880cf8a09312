"""What a MetaMasters player cannot see, re-dealt (`determinize`): the states the greedy bot
looks ahead on, and the second state of the hidden-information tests."""

from __future__ import annotations

from engine.core.prng import Prng
from engine.core.sampling import dealt, picks
from engine.core.state import GameState
from engine.metamasters.cards import CARDS, K_ACTOR, K_SPECIAL, K_TOKEN
from engine.metamasters.encoding import MetaMastersState
from engine.metamasters.state import FIELD_FACTS, S_RESOLVE, Z_ACTOR, Z_DECK, Z_HAND, Z_SPECIAL

#: what an unseen card of the opponent is drawn from (its deck list is private): any card of
#: the catalogue but a Token in a hand or a deck, an Actor or a Special face-down in its zone
_IN_HAND_OR_DECK = tuple(c.index for c in CARDS if c.kind != K_TOKEN)
_ACTORS = tuple(c.index for c in CARDS if c.kind == K_ACTOR)
_SPECIALS = tuple(c.index for c in CARDS if c.kind == K_SPECIAL)


def determinize(state: GameState, viewer: int, prng: Prng) -> MetaMastersState:
    """A state `viewer` cannot tell from `state` (the same observation and legal moves) in
    which everything hidden from them is dealt anew from `prng`, whatever the real hidden
    cards are: its own deck shuffled; the opponent's unseen instances (hand, deck, face-down
    cards) dealt to those places anew, each with a card drawn from the catalogue for its
    place (a face-down card keeps its kind, which its zone shows, and the facts of its place);
    the PRNG reseeded, so draws and shuffles to come are not the match's.
    """
    assert isinstance(state, MetaMastersState)
    s = state.clone()
    me, opp = viewer, 1 - viewer
    s.deck[me] = dealt(s.deck[me], prng)
    hand, deck = s.hand[opp], s.deck[opp]
    places = [
        (row, k, zone, prior)
        for row, zone, prior in (
            (s.actors[opp], Z_ACTOR, _ACTORS),
            (s.specials[opp], Z_SPECIAL, _SPECIALS),
        )
        for k, i in enumerate(row)
        if i >= 0 and not s.faceup[i]
    ]
    face_down = [row[k] for row, k, _, _ in places]
    # a face-down card's facts stay with its place; a card in a hand or a deck has none
    facts = [(getattr(s, name), default) for name, default in FIELD_FACTS.items()]
    kept = [[values[i] for values, _ in facts] for i in face_down]
    for i in face_down:
        for values, default in facts:
            values[i] = default
    ids = dealt([*hand, *deck, *face_down], prng)
    h, d = len(hand), len(deck)
    hand[:], deck[:] = ids[:h], ids[h : h + d]
    zone = s.zone
    cid = list(s.cid)
    for i, card in zip(ids[: h + d], picks(prng, _IN_HAND_OR_DECK, h + d), strict=True):
        zone[i] = Z_HAND if i in hand else Z_DECK
        cid[i] = card
    moved = dict(zip(face_down, ids[h + d :], strict=True))
    for (row, k, where, prior), new, values_of in zip(places, ids[h + d :], kept, strict=True):
        row[k] = new
        zone[new] = where
        for (values, _), value in zip(facts, values_of, strict=True):
            values[new] = value
        cid[new] = prior[prng.below(len(prior))]
    host = s.host
    for link in s.links[opp]:
        host[link] = moved.get(host[link], host[link])
    # what names a face-down card follows it to its new instance: an attack and the response
    # chain (ruleset 2) may target one
    s.atk_a, s.atk_t = moved.get(s.atk_a, s.atk_a), moved.get(s.atk_t, s.atk_t)
    s.prompts = [
        (kind, q, s.chain_link(*(moved.get(i, i) for i in s.link_parts(arg))))
        if kind == S_RESOLVE
        else (kind, q, arg)
        for kind, q, arg in s.prompts
    ]
    s.cid = tuple(cid)
    s.prng = Prng(prng.next_u64())
    return s

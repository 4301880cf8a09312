"""The greedy bot's evaluation of a WISH state, from what one player may see."""

from __future__ import annotations

from engine.core.actions import Action
from engine.core.state import GameState
from engine.metaversus.cards import CARDS, PACK
from engine.metaversus.effects import MODE_REMOVE
from engine.metaversus.state import COMBAT, MAX_STARS, P_HAND, P_SKILL, WISH, WishBoard


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


#: a bot removes no card from its deck once it owns this many cards or fewer (the basic deck)
MIN_OWNED = 10
_REMOVING_SKILL = tuple(
    "remove_hand" in CARDS.effects[2 * CARDS.n + k].ops if CARDS.kind[k] == PACK else False
    for k in range(CARDS.n)
)


def bot_preferences(state: GameState, actions: list[Action]) -> list[Action]:
    """The actions a bot considers: none that only stalls the match.

    The guide has no round limit, so two duelists who can no longer deal damage never end a
    match. A bot does not take a Wishing Star it would lose (it has 3), ends no Combat Phase
    while it could still play a weapon, and does not remove
    cards from its deck (a "may" removal, or the Thief's skill) once it owns `MIN_OWNED` cards
    or fewer: random play otherwise thins a deck down to a card or two. Reads only what the
    player knows: its stars and its own cards.
    """
    assert isinstance(state, WishBoard)
    s = state
    if s.stack:
        top = s.stack[-1]
        kind, p = top[0], top[1]
        removing = (kind == P_HAND and top[2] == MODE_REMOVE and top[3]) or (
            kind == P_SKILL and _REMOVING_SKILL[s.char[p]]
        )
        if removing and _owned(s, p) <= MIN_OWNED:
            return [a for a in actions if a.kind == "decline"]
        return actions
    if s.phase == WISH and s.stars[s.active] >= MAX_STARS:
        return [a for a in actions if a.kind != "wish"]
    if s.phase == COMBAT and any(a.kind == "play" for a in actions):
        return [a for a in actions if a.kind != "next"]  # attack before ending combat
    return actions


def _owned(s: WishBoard, p: int) -> int:
    return len(s.hand[p]) + len(s.deck[p]) + len(s.disc[p]) + len(s.play[p])

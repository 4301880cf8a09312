"""Match setup: what a player brings (character packs), the match options, and new_match.

A player's "deck" is the set of Character Packs they own and bring: `{pack_id: 1, ...}`.
How many depends on the character-selection variant (match option "selection"):

- "basic" (default): exactly 5 packs each. Both players' character cards form the Character
  Card pile (10 cards); each duelist is dealt 5, may ban one pack, passes the rest and
  chooses 1 character from the hand received.
- "difficulty": 1-5 packs each, all of the difficulty named by option "difficulty"; the same
  ban/pass/choose steps with min(5, pile // 2) cards each.
- "random": 1-5 packs each; the pile of both players' cards is shuffled and each duelist
  draws 1 character.
- "free": exactly 1 pack each: that is the duelist's character.

Option "first_match" (0 or 1, default none): that duelist is playing their first match and
starts as the second player; otherwise the First Player Die decides. Option "max_rounds" is
the engine's safety cap: under ruleset 2 (default 200) a match that lasts that many rounds ends
as a draw reported as an engine limit; under ruleset 1 (default 50) it ended as if an HP had
reached 0.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.core.errors import DeckRejected, Violation
from engine.core.game import Deck
from engine.core.legal_decks import LastLegalDecks
from engine.metaversus.cards import CARDS, DIFFICULTIES, PACK, STOCK_COPIES
from engine.metaversus.encoding import WishState
from engine.metaversus.state import P_BAN, SRC_NEUTRAL, SRC_REQUIRED

#: character selection variants (match option "selection")
SELECTIONS = ("basic", "difficulty", "random", "free")

#: the default options of ruleset 1: its round limit (50) decided a match by HP
DEFAULT_OPTIONS_REV1: dict[str, Any] = {
    "selection": "basic",
    "difficulty": None,
    "first_match": None,
    "max_rounds": 50,
}
#: ruleset 2: `max_rounds` is only a safety cap (a match reaching it is a draw, reported as an
#: engine limit), so it is set well beyond the length of a real match
DEFAULT_OPTIONS: dict[str, Any] = {**DEFAULT_OPTIONS_REV1, "max_rounds": 200}
#: the ruleset revision new matches use (engine/metaversus/__init__.py lists the rulesets)
REVISION = 2
#: character cards each duelist is dealt by the basic selection rules
SELECTION_HAND = 5
_PACK_COUNTS = {"basic": (5, 5), "difficulty": (1, 5), "random": (1, 5), "free": (1, 1)}


def check_options(options: Mapping[str, Any]) -> list[Violation]:
    """Every problem with the match options."""
    out: list[Violation] = []
    unknown = set(options) - set(DEFAULT_OPTIONS)
    if unknown:
        out.append(Violation("metaversus.options.unknown", f"unknown option(s) {sorted(unknown)}"))
    sel = options.get("selection", "basic")
    if sel not in SELECTIONS:
        out.append(
            Violation(
                "metaversus.options.selection", f"selection must be one of {list(SELECTIONS)}"
            )
        )
    diff = options.get("difficulty")
    if sel == "difficulty" and diff not in DIFFICULTIES:
        out.append(
            Violation(
                "metaversus.options.difficulty", f"difficulty must be one of {list(DIFFICULTIES)}"
            )
        )
    fm = options.get("first_match")
    if fm is not None and (fm not in (0, 1) or isinstance(fm, bool)):
        out.append(Violation("metaversus.options.first-match", "first_match is 0, 1 or null"))
    mr = options.get("max_rounds", 50)
    if not isinstance(mr, int) or isinstance(mr, bool) or mr < 1:
        out.append(Violation("metaversus.options.max-rounds", "max_rounds is an integer >= 1"))
    return out


def check_deck(deck: Deck, options: Mapping[str, Any]) -> list[Violation]:
    """Every broken rule of the packs a player brings (empty list: legal)."""
    out = check_options(options)
    sel = options.get("selection", "basic")
    diff = options.get("difficulty")
    packs = 0
    for cid, n in sorted(deck.items()):
        k = CARDS.index.get(cid, -1)
        if k < 0 or CARDS.kind[k] != PACK:
            out.append(
                Violation("metaversus.deck.unknown-pack", f"{cid!r} is not a character pack", cid)
            )
            continue
        packs += 1
        if n != 1:
            out.append(
                Violation("metaversus.deck.copies", f"bring each character pack once, not {n}", cid)
            )
        if sel == "difficulty" and diff in DIFFICULTIES and CARDS.difficulty[k] != diff:
            out.append(
                Violation(
                    "metaversus.deck.difficulty",
                    f"{cid!r} is {CARDS.difficulty[k]}, not {diff}",
                    cid,
                )
            )
    lo, hi = _PACK_COUNTS.get(sel, (1, 5))
    if not lo <= packs <= hi:
        want = str(lo) if lo == hi else f"{lo} to {hi}"
        out.append(
            Violation(
                "metaversus.deck.pack-count", f"the {sel} selection needs {want} packs, got {packs}"
            )
        )
    return out


def required_tokens(deck: Deck) -> dict[str, int]:
    """The tokens a player must own: one of each character pack brought."""
    return {
        cid: 1
        for cid in sorted(deck)
        if cid in CARDS.index and CARDS.kind[CARDS.index[cid]] == PACK
    }


def _packs(deck: Deck) -> list[int]:
    return sorted(CARDS.index[cid] for cid in deck)


_LAST_LEGAL: LastLegalDecks[bool] = LastLegalDecks()


def new_match(
    decks: tuple[Deck, Deck], seed: int, options: Mapping[str, Any], revision: int = REVISION
) -> WishState:
    """Set up a match up to the first decision (setup steps #1-#2 of the guide) under ruleset
    `revision`."""
    opts = {**(DEFAULT_OPTIONS_REV1 if revision == 1 else DEFAULT_OPTIONS), **options}
    if _LAST_LEGAL.get(decks, opts) is None:
        violations = [v for d in decks for v in check_deck(d, opts)]
        if violations:
            raise DeckRejected(list(dict.fromkeys(violations)))
        _LAST_LEGAL.put(decks, opts, True)
    s = WishState(seed, revision)
    rng = s.rng
    s.max_rounds = int(opts["max_rounds"])
    fm = opts["first_match"]
    s.first = -1 if fm is None else 1 - int(fm)
    # 1. Required market cards, then the neutral pile shuffled with 2 types revealed.
    for c in CARDS.required_cards:
        s.m_card.append(c)
        s.m_stock.append(CARDS.count[c])
        s.m_src.append(SRC_REQUIRED)
    neutral = list(CARDS.neutral)
    rng.shuffle(neutral)
    for _ in range(2):
        s.m_card.append(neutral.pop())
        s.m_stock.append(STOCK_COPIES)
        s.m_src.append(SRC_NEUTRAL)
    s.neutral = neutral
    # 2. Character selection.
    sel = opts["selection"]
    p0, p1 = _packs(decks[0]), _packs(decks[1])
    if sel == "free":
        s.start_picks(p0[0], p1[0])
    elif sel == "random":
        pile = p0 + p1
        rng.shuffle(pile)
        s.start_picks(pile[0], pile[1])
    else:
        pile = p0 + p1
        rng.shuffle(pile)
        k = min(SELECTION_HAND, len(pile) // 2)
        s.sel = [pile[:k], pile[k : 2 * k]]
        s.stack = [[P_BAN, 1], [P_BAN, 0]]
    return s

"""Public ids and moves: what every game's projection shares (docs/engine.md, "What a reader sees").

A reader names a card by a public id: its own cards by instance id (an int, stable for the whole
match: the owner knows each of its cards wherever it goes), every other card by its place, a
string such as `"1.actor.2"` (player 1's Actor zone 2) or `"0.discard.4"`. A place says where a
card is and nothing about which card it is, so a card that goes back into hiding (a hand, a deck)
and comes out again cannot be told by its id; the price is that a card moving between public
zones changes id, and a pile renumbers the cards above one that leaves it.

`resolve_move` turns a move a client sends (ids of its viewer) back into an `Action`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from engine.core.actions import Action
from engine.core.errors import IllegalAction

#: the most arguments any action of any game takes, and the longest kind and place a client
#: may send
MAX_ARGS = 8
MAX_KIND = 32
MAX_PLACE = 40

#: a card's place, split at its dots: the side of the table (0 or 1), then zone words and indexes
Place = tuple[int | str, ...]


def place(side: int, *path: str | int) -> str:
    """The place id of a card on `side`'s part of the table, e.g. place(1, "actor", 2) = "1.actor.2"."""
    return ".".join(map(str, (side, *path)))


def parse_place(text: str) -> Place | None:
    """Split a place id into (side, zone words and indexes); None if it is not one."""
    if len(text) > MAX_PLACE:
        return None
    parts = text.split(".")
    if len(parts) < 3 or parts[0] not in ("0", "1"):
        return None
    out: list[int | str] = [int(parts[0])]
    for part in parts[1:]:
        if part.isdigit() and part.isascii() and len(part) <= 3:
            out.append(int(part))
        elif part and part.isascii() and part.replace("-", "").isalpha() and part.islower():
            out.append(part)
        else:
            return None
    return tuple(out)


def resolve_move(
    game: str,
    move: Any,
    viewer: int,
    card_args: Mapping[str, tuple[int, ...]] | None = None,
    owner: Sequence[int] = (),
    card_at: Callable[[Place], int] | None = None,
) -> Action:
    """The action `viewer` means by `move`, `[kind, *args]` in the viewer's ids.

    `card_args[kind]` lists the argument positions that name a card: there an int must be one
    of the viewer's own instance ids (`owner[i] == viewer`) or negative (a literal, e.g. -1 to
    decline) and a string a place where the viewer sees a card (`card_at` gives its instance
    id, -1 for none). Every other argument is an int (a game without instances, like WISH,
    gives no `card_args`). Raises IllegalAction (`<game>.move.malformed`,
    `<game>.move.unknown-card`) with messages that depend only on what the viewer sees.
    """
    if not isinstance(move, list | tuple) or not move or type(move[0]) is not str:
        raise IllegalAction(f"{game}.move.malformed", "a move is a JSON list [kind, *args]")
    kind = move[0]
    raw = move[1:]
    if len(kind) > MAX_KIND or len(raw) > MAX_ARGS:
        raise IllegalAction(
            f"{game}.move.malformed",
            f"a move's kind has at most {MAX_KIND} characters and it takes at most {MAX_ARGS} arguments",
        )
    cards = card_args.get(kind, ()) if card_args else ()
    args: list[int] = []
    for i, arg in enumerate(raw):
        if type(arg) is int:
            if i in cards and arg >= 0 and not (arg < len(owner) and owner[arg] == viewer):
                raise IllegalAction(f"{game}.move.unknown-card", f"you have no card {arg}")
            args.append(arg)
        elif i in cards and type(arg) is str and card_at is not None:
            where = parse_place(arg)
            iid = card_at(where) if where is not None else -1
            if iid < 0:
                shown = arg if len(arg) <= MAX_PLACE else arg[:MAX_PLACE] + "..."
                raise IllegalAction(
                    f"{game}.move.unknown-card", f"there is no card you can see at {shown!r}"
                )
            args.append(iid)
        else:  # a bool, a float, a place where no card may be named, ...
            what = "an instance id or a place" if i in cards else "an integer"
            raise IllegalAction(f"{game}.move.malformed", f"argument {i + 1} of {kind!r} is {what}")
    return Action(kind, tuple(args))

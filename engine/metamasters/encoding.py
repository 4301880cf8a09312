"""What a MetaMasters match looks like from outside: its JSON, its hash, what each player sees,
and labels."""

from __future__ import annotations

from typing import Any, Self

from engine.core.actions import Action
from engine.core.prng import Prng
from engine.core.projection import Place, place, resolve_move
from engine.core.state import Viewer, pack_ints, pack_prng
from engine.metamasters.cards import BY_ID, CARDS, K_ACTOR
from engine.metamasters.moves import ACTION_ARITY, MetaMastersRules
from engine.metamasters.state import (
    ACTOR_ZONES,
    ATTACK,
    FIELD_FACTS,
    PHASE_NAMES,
    PROMPT_NAMES,
    S_RESOLVE,
    SPECIAL_ZONES,
    Z_ACTOR,
    Z_EXILE,
    Z_LINK,
    Z_SPECIAL,
    Z_TOKEN,
    Z_TRASH,
    ZONE_LISTS,
)

#: for each action kind with arguments, the positions of its arguments that name a card (all
#: of them)
_CARD_ARGS: dict[str, tuple[int, ...]] = {
    kind: (0, 1) for kind, (_, most) in ACTION_ARITY.items() if most
}
#: the public piles: zone -> its name in a place id, and that name -> the per-player list
_PILES = {Z_TRASH: "trash", Z_EXILE: "exile", Z_TOKEN: "token"}
_PILE_LISTS = {"trash": "trash", "exile": "exile", "token": "tokens"}

_PER_PLAYER = ("hand", "deck", "actors", "specials", "links", "trash", "exile", "tokens")
_SCALARS = (
    "turn",
    "active",
    "phase",
    "first",
    "plays_used",
    "extra_plays",
    "links_used",
    "atk_a",
    "atk_t",
    "atk_neg",
    "win",
    "over",
)

_IDS_CACHE: dict[tuple[int, ...], str] = {}


def _card_ids(cid: tuple[int, ...]) -> str:
    """Card ids of a match's instances, comma-separated (cached: clones share `cid`)."""
    ids = _IDS_CACHE.get(cid)
    if ids is None:
        if len(_IDS_CACHE) > 256:
            _IDS_CACHE.clear()
        ids = _IDS_CACHE[cid] = ",".join(CARDS[i].id for i in cid)
    return ids


#: id(cid) -> (cid, owner, their packed bytes); the entry holds cid, so the id stays its own
_STATIC_CACHE: dict[int, tuple[tuple[int, ...], tuple[int, ...], bytes]] = {}


def _static_bytes(cid: tuple[int, ...], owner: tuple[int, ...]) -> bytes:
    """The per-match tables (card and owner of each instance) packed once and shared by clones."""
    hit = _STATIC_CACHE.get(id(cid))
    if hit is None or hit[0] is not cid or hit[1] is not owner:
        if len(_STATIC_CACHE) > 256:
            _STATIC_CACHE.clear()
        hit = _STATIC_CACHE[id(cid)] = (cid, owner, pack_ints((len(cid), *cid, *owner)))
    return hit[2]


class MetaMastersState(MetaMastersRules):
    """A MetaMasters match: the rules of state.py and moves.py, with their encodings."""

    __slots__ = ()

    def _field_rows(self) -> list[tuple[int, ...]]:
        """Each card on the field (Actors, Specials, Links), by iid: the iid, then its values
        of FIELD_FACTS in that order."""
        a0, a1 = self.actors
        s0, s1 = self.specials
        on_field = [i for i in (*a0, *a1, *s0, *s1) if i >= 0]
        on_field += self.links[0]
        on_field += self.links[1]
        on_field.sort()
        f, po, sa, em, im, at, ba, pc, pv, ho = (getattr(self, name) for name in FIELD_FACTS)
        return [
            (i, f[i], po[i], sa[i], em[i], im[i], at[i], ba[i], pc[i], pv[i], ho[i])
            for i in on_field
        ]

    def to_json(self) -> dict[str, Any]:
        """The whole state as JSON-able data.

        Per-instance facts are written only for cards on the field: every card that leaves the
        field is reset to the defaults, and `zone` is implied by the zone lists.
        """
        data = {
            "game": "metamasters",
            "cards": _card_ids(self.cid),
            "player1_from": self.owner.index(1) if 1 in self.owner else len(self.owner),
            "prng": self.prng.get_state(),
            "prompts": [list(p) for p in self.prompts],
            # per instance on the field: iid, then the values named by FIELD_FACTS
            "field": [list(row) for row in self._field_rows()],
            # per player: the zone lists named by _PER_PLAYER, in that order
            "zones": [[getattr(self, name)[q][:] for name in _PER_PLAYER] for q in (0, 1)],
            # the values named by _SCALARS, in that order
            "scalars": [
                self.turn,
                self.active,
                self.phase,
                self.first,
                self.plays_used,
                self.extra_plays,
                self.links_used,
                self.atk_a,
                self.atk_t,
                self.atk_neg,
                self.win,
                int(self.over),
            ],
        }
        if self.rev != 1:  # ruleset 1 states encode as they did
            data["rev"] = [self.rev, self.played_main1]
        return data

    def hash_bytes(self) -> bytes:
        """The compact encoding `state_hash` digests (the same information as `to_json`).

        Layout, all int64s but the PRNG words: the number of instances, the catalogue index of
        each, the owner of each; the PRNG words; the 12 values of `_SCALARS` in that order; the
        number of prompts, each as its three ints; the number of cards on the field, each as
        its iid then the 10 values of `FIELD_FACTS`; then per player (0, then 1) the lists
        of `_PER_PLAYER`, each as its length then its ids; last, when the ruleset revision is
        not 1, the revision and `played_main1`.
        """
        a0, a1 = self.actors
        s0, s1 = self.specials
        l0, l1 = self.links
        rows = self._field_rows()
        prompts = self.prompts
        flat = [
            self.turn, self.active, self.phase, self.first, self.plays_used, self.extra_plays,
            self.links_used, self.atk_a, self.atk_t, self.atk_neg, self.win, self.over,
            len(prompts),
        ]  # fmt: skip
        for pr in prompts:
            flat += pr
        flat.append(len(rows))
        for row in rows:
            flat += row
        h0, h1 = self.hand
        d0, d1 = self.deck
        t0, t1 = self.trash
        e0, e1 = self.exile
        k0, k1 = self.tokens
        flat += (
            len(h0), *h0, len(d0), *d0, len(a0), *a0, len(s0), *s0, len(l0), *l0,
            len(t0), *t0, len(e0), *e0, len(k0), *k0,
            len(h1), *h1, len(d1), *d1, len(a1), *a1, len(s1), *s1, len(l1), *l1,
            len(t1), *t1, len(e1), *e1, len(k1), *k1,
        )  # fmt: skip
        if self.rev != 1:
            flat += (self.rev, self.played_main1)
        return (
            _static_bytes(self.cid, self.owner) + pack_prng(self.prng.get_state()) + pack_ints(flat)
        )

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Self:
        """Rebuild a state from `to_json()` output."""
        if data.get("game") != "metamasters":
            raise ValueError("not a metamasters state")
        cid = tuple(BY_ID[c].index for c in data["cards"].split(","))
        n = len(cid)
        split = int(data["player1_from"])
        rev, played_main1 = data.get("rev", (1, 0))
        s = cls(cid, (0,) * split + (1,) * (n - split), Prng.from_state(data["prng"]), int(rev))
        s.played_main1 = int(played_main1)
        for name, zones0, zones1 in zip(_PER_PLAYER, *data["zones"], strict=True):
            setattr(s, name, [[int(v) for v in zones0], [int(v) for v in zones1]])
        for code, name in ZONE_LISTS:
            for side in getattr(s, name):
                for i in side:
                    if i >= 0:
                        s.zone[i] = code
        for entry in data["field"]:
            i = int(entry[0])
            for name, value in zip(FIELD_FACTS, entry[1:], strict=True):
                getattr(s, name)[i] = int(value)
        for name, value in zip(_SCALARS, data["scalars"], strict=True):
            setattr(s, name, bool(value) if name == "over" else int(value))
        s.prompts = [(int(k), int(p), int(a)) for k, p, a in data["prompts"]]
        return s

    # ------------------------------------------------------------------ views

    def label(self, action: Action) -> str:
        """The referee's description of an action (every card named, with its instance id)."""
        args = action.args
        names = [self._name(x) for x in args]
        k = action.kind
        if k == "play":
            return f"play {names[0]}" + (f", sending {names[1]} to Trash" if len(args) == 2 else "")
        if k == "set":
            return f"set {names[0]} face-down" + (
                f", sending {names[1]} to Trash" if len(args) == 2 else ""
            )
        if k == "link":
            return f"attach {names[0]} to {names[1]}"
        if k == "activate":
            return f"activate {names[0]}"
        if k == "flip":
            return f"flip {names[0]} face-up"
        if k == "position":
            return f"change the battle position of {names[0]}"
        if k == "attack":
            return f"{names[0]} attacks {names[1]}"
        if k == "direct":
            return f"{names[0]} attacks directly"
        if k == "target":
            return f"target {names[0]}"
        if k == "next":
            return f"end {PHASE_NAMES[self.phase]}"
        return k

    def _name(self, iid: int) -> str:
        if not 0 <= iid < len(self.cid):
            return f"#{iid}"
        c = CARDS[self.cid[iid]]
        if (
            self.zone[iid] in (Z_ACTOR, Z_SPECIAL)
            and not self.faceup[iid]
            and self.owner[iid] != self.current_player
        ):
            return f"face-down card #{iid}"
        mark = f" {c.mark}" if c.mark else ""
        return f"{c.name}{mark} #{iid}"

    # --- what a reader sees (docs/engine.md, "What a reader sees") -------------------------

    def place(self, iid: int) -> str | None:
        """Where every reader sees a card: `q.actor.s`, `q.actor.s.link.j` (the j-th Link on
        that Actor), `q.special.s`, `q.trash.k`, `q.exile.k` or `q.token.k` (q its owner);
        None in a hand or a deck."""
        q = self.owner[iid]
        z = self.zone[iid]
        if z == Z_ACTOR:
            return place(q, "actor", self.actors[q].index(iid))
        if z == Z_SPECIAL:
            return place(q, "special", self.specials[q].index(iid))
        if z == Z_LINK:
            host = self.host[iid]
            on_host = [x for x in self.links[q] if self.host[x] == host]
            return place(q, "actor", self.actors[q].index(host), "link", on_host.index(iid))
        pile = _PILES.get(z)
        if pile is not None:
            return place(q, pile, getattr(self, _PILE_LISTS[pile])[q].index(iid))
        return None

    def card_at(self, where: Place) -> int:
        """The instance at a place (see `place`), or -1 if no card is seen there."""
        match where:
            case (int(q), "actor", int(s)) if s < ACTOR_ZONES:
                return self.actors[q][s]
            case (int(q), "actor", int(s), "link", int(j)) if s < ACTOR_ZONES:
                host = self.actors[q][s]
                on_host = [x for x in self.links[q] if host >= 0 and self.host[x] == host]
                return on_host[j] if j < len(on_host) else -1
            case (int(q), "special", int(s)) if s < SPECIAL_ZONES:
                return self.specials[q][s]
            case (int(q), str(pile), int(k)) if pile in _PILE_LISTS:
                zone = getattr(self, _PILE_LISTS[pile])[q]
                return zone[k] if k < len(zone) else -1
        return -1

    def public_id(self, iid: int, viewer: Viewer) -> int | str | None:
        """The id `viewer` knows a card by: its own cards' instance ids, any other card's place,
        None for a card in the opponent's hand or a deck (an int that is not a card stays)."""
        if not 0 <= iid < len(self.cid) or self.owner[iid] == viewer:
            return iid
        return self.place(iid)

    def _sees(self, iid: int, viewer: Viewer) -> bool:
        """Whether `viewer` knows which card an instance is."""
        z = self.zone[iid]
        if self.owner[iid] == viewer or z in _PILES or z == Z_LINK:
            return True
        return z in (Z_ACTOR, Z_SPECIAL) and bool(self.faceup[iid])

    def project(self, action: Action, viewer: Viewer) -> dict[str, Any]:
        """The log entry of `action` for `viewer`: every argument as the viewer's id (null for a
        card it could not see); the label names a card only if the viewer sees it or the action
        shows it (a card played, activated, attached or flipped face-up)."""
        ref = self.public_id
        shown = [ref(a, viewer) for a in action.args]
        try:
            label = self._describe(action, viewer)
        except (IndexError, ValueError):
            label = action.kind
        return {"label": label, "action": [action.kind, *shown]}

    def resolve(self, move: Any, viewer: int) -> Action:
        """The action `viewer` means by a move in its ids (see `project`)."""
        return resolve_move("metamasters", move, viewer, _CARD_ARGS, self.owner, self.card_at)

    def _describe(self, action: Action, viewer: Viewer) -> str:
        """The label of an action for `viewer` (see `project`)."""
        args = action.args
        k = action.kind
        if k == "next":
            return f"end {PHASE_NAMES[self.phase]}"
        if not args or not all(0 <= x < len(self.cid) for x in args):
            return k
        actor = self.current_player

        def called(i: int) -> str:
            if self._sees(i, viewer):
                c = CARDS[self.cid[i]]
                return f"{c.name} {c.mark}" if c.mark else c.name
            where = self.place(i)
            return f"a face-down card ({where})" if where else "a card"

        def shown(i: int) -> str:  # a card of the actor's that this action turns face-up
            if self.owner[i] != actor:
                return called(i)
            c = CARDS[self.cid[i]]
            return f"{c.name} {c.mark}" if c.mark else c.name

        tribute = f", sending {called(args[1])} to Trash" if len(args) == 2 else ""
        if k == "play":
            return f"play {shown(args[0])}{tribute}"
        if k == "set":
            where = self._set_place(args)
            return f"set {called(args[0])} face-down" + (f" ({where})" if where else "") + tribute
        if k == "link":
            return f"attach {shown(args[0])} to {called(args[1])}"
        if k == "activate":
            return f"activate {shown(args[0])}"
        if k == "flip":
            return f"flip {shown(args[0])} face-up"
        if k == "position":
            return f"change the battle position of {called(args[0])}"
        if k == "attack":
            return f"{called(args[0])} attacks {called(args[1])}"
        if k == "direct":
            return f"{called(args[0])} attacks directly"
        if k == "target":
            return f"target {called(args[0])}"
        return k

    def _set_place(self, args: tuple[int, ...]) -> str | None:
        """The place a card set from the hand lands in (its zone's first free slot, after a
        tribute leaves), or None if there is no room."""
        iid = args[0]
        q = self.owner[iid]
        if CARDS[self.cid[iid]].kind == K_ACTOR:
            row = self.actors[q][:]
            if len(args) == 2 and args[1] in row:
                row[row.index(args[1])] = -1
            return place(q, "actor", row.index(-1)) if -1 in row else None
        row = self.specials[q]
        return place(q, "special", row.index(-1)) if -1 in row else None

    def observation(self, viewer: Viewer) -> dict[str, Any]:
        """What `viewer` may see (None: a spectator): no hand but its own, no deck order, no
        face-down card but its own; cards by public id (see `project`)."""
        cid = self.cid
        owner = self.owner

        def ident(i: int, q: int, *path: str | int) -> int | str:
            return i if owner[i] == viewer else place(q, *path)

        def on_field(i: int, q: int, zone: str, s: int, **more: Any) -> dict[str, Any]:
            """A card of a field zone: its id, its face, `more`, and the card if it is shown."""
            view: dict[str, Any] = {
                "id": ident(i, q, zone, s),
                "face_up": bool(self.faceup[i]),
                **more,
            }
            if self.faceup[i] or q == viewer:
                view["card"] = CARDS[cid[i]].id
            return view

        def actor(i: int, q: int, s: int) -> dict[str, Any] | None:
            if i < 0:
                return None
            view = on_field(
                i, q, "actor", s, position="attack" if self.pos[i] == ATTACK else "defense"
            )
            if "card" in view:
                view["ego"] = self.ego(i)
                view["int"] = self.intel(i)
            on_host = [x for x in self.links[q] if self.host[x] == i]
            view["links"] = [
                {"id": ident(x, q, "actor", s, "link", j), "card": CARDS[cid[x]].id}
                for j, x in enumerate(on_host)
            ]
            return view

        def special(i: int, q: int, s: int) -> dict[str, Any] | None:
            return None if i < 0 else on_field(i, q, "special", s)

        sides = []
        for q in (0, 1):
            side: dict[str, Any] = {
                "deck": len(self.deck[q]),
                "hand_count": len(self.hand[q]),
                "actors": [actor(i, q, s) for s, i in enumerate(self.actors[q])],
                "specials": [special(i, q, s) for s, i in enumerate(self.specials[q])],
                "trash": [CARDS[cid[i]].id for i in self.trash[q]],
                "exile": [CARDS[cid[i]].id for i in self.exile[q]],
                "tokens": [CARDS[cid[i]].id for i in self.tokens[q]],
            }
            if q == viewer:
                side["hand"] = [{"id": i, "card": CARDS[cid[i]].id} for i in self.hand[q]]
            sides.append(side)
        top = self.prompts[-1] if self.prompts else None
        ref = self.public_id
        return {
            "game": "metamasters",
            "player": viewer,
            "turn": self.turn,
            "active": self.active,
            "phase": PHASE_NAMES[self.phase],
            "current_player": self.current_player,
            "prompt": PROMPT_NAMES[top[0]] if top else None,
            "attack": None
            if self.atk_a < 0
            else {
                "attacker": ref(self.atk_a, viewer),
                "target": ref(self.atk_t, viewer) if self.atk_t >= 0 else None,
            },
            # the response chain (ruleset 2), first link first: each source is face-up; a
            # target is named by the viewer's id for it
            "chain": [
                {
                    "source": ref(src, viewer),
                    "card": CARDS[cid[src]].id,
                    "controller": q,
                    "target": ref(t, viewer) if t >= 0 else None,
                }
                for src, t, q in (
                    (*self.link_parts(pr[2]), pr[1]) for pr in self.prompts if pr[0] == S_RESOLVE
                )
            ],
            "over": self.over,
            "winner": self.winner,
            "players": sides,
        }

"""The MetaMasters match state: zones, phases, battle, and the explicit prompt stack.

Every card in a match is an integer instance id (iid); per-iid facts live in flat lists and
per-player zones are lists of iids, so `clone()` is a handful of list copies. Decisions are
prompts on `self.prompts` (tuples `(kind, player, arg)`); automatic steps (damage calculation,
end of turn) sit on the same stack, so a state can be saved between any two choices.

`MetaMastersBoard` holds the data, the card facts, the moves the effects use (it is the
`Board` of effects.py) and the flow of a turn; moves.py adds the actions a player takes.
"""

from __future__ import annotations

from typing import ClassVar

from engine.core.effects import EffectFrame, run_effect
from engine.core.prng import Prng
from engine.core.state import TERMINAL, GameState, field_copier
from engine.metamasters.cards import CARDS, K_SPECIAL, K_TOKEN, S_CONTINUOUS

# Zones of a card instance.
Z_DECK, Z_HAND, Z_ACTOR, Z_LINK, Z_SPECIAL, Z_TRASH, Z_EXILE, Z_TOKEN = range(8)
ZONE_NAMES = ("deck", "hand", "actor", "link", "special", "trash", "exile", "token")

# Phases of a turn.
DRAW, STANDBY, MAIN1, BATTLE, MAIN2, END = range(6)
PHASE_NAMES = ("draw", "standby", "main1", "battle", "main2", "end")

# Prompt kinds: decisions (a player must act) and automatic steps.
P_MAIN, P_BATTLE, P_RESPONSE, P_TARGET = range(4)
#: S_DAMAGE: a declared attack's damage calculation; S_RESOLVE (ruleset 2): a link of the
#: response chain, arg = `chain_link(source, target)`
S_DAMAGE, S_ENDTURN, S_RESOLVE = 10, 11, 12
PROMPT_NAMES = {
    P_MAIN: "main",
    P_BATTLE: "battle",
    P_RESPONSE: "response",
    P_TARGET: "target",
    S_DAMAGE: "damage",
    S_ENDTURN: "end_turn",
    S_RESOLVE: "resolve",
}
#: the arg of a response window: W_OPEN (the only kind in ruleset 1) stays open until its
#: player passes; a chain window (ruleset 2) answers the link on top of the chain, first for
#: the opponent of that link's controller (W_CHAIN_FIRST), then, if they pass, for the
#: controller (W_CHAIN_SECOND); when both pass the chain resolves, last link first
W_OPEN, W_CHAIN_FIRST, W_CHAIN_SECOND = 0, 1, 2

#: each zone, and the per-player list of the state that holds its cards
ZONE_LISTS = (
    (Z_HAND, "hand"),
    (Z_DECK, "deck"),
    (Z_ACTOR, "actors"),
    (Z_SPECIAL, "specials"),
    (Z_LINK, "links"),
    (Z_TRASH, "trash"),
    (Z_EXILE, "exile"),
    (Z_TOKEN, "tokens"),
)

ATTACK, DEFENSE = 0, 1
ACTOR_ZONES = 3
SPECIAL_ZONES = 3
#: the per-instance facts of a card on the field, and their values off the field (`_reset`);
#: encoding.py lays them out in this order
FIELD_FACTS = {
    "faceup": 0,
    "pos": ATTACK,
    "set_at": -1,
    "ego_mod": 0,
    "int_mod": 0,
    "attacked": 0,
    "bonus_atk": 0,
    "pos_changed": 0,
    "pos_revert": 0,
    "host": -1,
}


#: the zones a card leaving the field or the hand may go to (`_put`), by their per-player list
_PUT_LISTS = {zone: name for zone, name in ZONE_LISTS if zone in (Z_TRASH, Z_EXILE, Z_HAND)}


class MetaMastersBoard(GameState):
    """A MetaMasters match's data, what happens to it, and the flow of a turn."""

    game: ClassVar[str] = "metamasters"

    __slots__ = (
        "active",
        "actors",
        "atk_a",
        "atk_neg",
        "atk_t",
        "attacked",
        "bonus_atk",
        "cid",
        "deck",
        "ego_mod",
        "exile",
        "extra_plays",
        "faceup",
        "first",
        "hand",
        "host",
        "int_mod",
        "links",
        "links_used",
        "owner",
        "phase",
        "played_main1",
        "plays_used",
        "pos",
        "pos_changed",
        "pos_revert",
        "prng",
        "prompts",
        "set_at",
        "specials",
        "tokens",
        "trash",
        "turn",
        "zone",
    )

    def __init__(
        self, cid: tuple[int, ...], owner: tuple[int, ...], prng: Prng, rev: int = 1
    ) -> None:
        n = len(cid)
        self.rev = rev
        #: catalogue index of each instance (shared between clones: never mutated)
        self.cid = cid
        #: owning player of each instance (shared between clones: never mutated)
        self.owner = owner
        self.prng = prng
        self.zone = [Z_DECK] * n
        self.faceup = [0] * n
        self.pos = [ATTACK] * n
        #: turn * 8 + phase when the card was last placed on the field face-down; under ruleset 2
        #: also when an Actor was played face-up (-1 once a set Actor is flipped face-up)
        self.set_at = [-1] * n
        self.ego_mod = [0] * n
        self.int_mod = [0] * n
        self.attacked = [0] * n
        self.bonus_atk = [0] * n
        self.pos_changed = [0] * n
        self.pos_revert = [0] * n
        #: for a Link on the field: the Actor it is attached to
        self.host = [-1] * n
        self.hand: list[list[int]] = [[], []]
        #: the top of a deck is its last element
        self.deck: list[list[int]] = [[], []]
        self.actors: list[list[int]] = [[-1] * ACTOR_ZONES, [-1] * ACTOR_ZONES]
        self.specials: list[list[int]] = [[-1] * SPECIAL_ZONES, [-1] * SPECIAL_ZONES]
        self.links: list[list[int]] = [[], []]
        self.trash: list[list[int]] = [[], []]
        self.exile: list[list[int]] = [[], []]
        self.tokens: list[list[int]] = [[], []]
        self.turn = 1
        self.active = 0
        self.phase = DRAW
        self.first = 0
        self.plays_used = 0
        self.extra_plays = 0
        self.links_used = 0
        #: ruleset 2: whether the active player played an Actor or a Link from hand in Main 1
        #: (set when Main 2 begins)
        self.played_main1 = 0
        self.atk_a = -1
        self.atk_t = -1
        self.atk_neg = 0
        self.win = -1
        self.over = False
        self.prompts: list[tuple[int, int, int]] = []

    # ------------------------------------------------------------------ interface

    @property
    def current_player(self) -> int:
        """The player who must act now, or TERMINAL."""
        if self.over or not self.prompts:
            return TERMINAL
        return self.prompts[-1][1]

    #: an independent copy by list copies
    clone = field_copier(
        shared="rev cid owner turn active phase first plays_used extra_plays links_used "
        "played_main1 atk_a atk_t atk_neg win over",
        copied="zone faceup pos set_at ego_mod int_mod attacked bonus_atk pos_changed pos_revert "
        "host prompts",
        paired="hand deck actors specials links trash exile tokens",
        cloned="prng",
    )

    def card_count(self) -> int:
        """The cards in every zone (conserved: none enters or leaves a match)."""
        n = 0
        for q in (0, 1):
            for _, name in ZONE_LISTS:
                n += sum(1 for i in getattr(self, name)[q] if i >= 0)
        return n

    def invariant_breaks(self) -> list[str]:
        """Every card in exactly one zone of its owner, matching `zone`; three Actor and three
        Special zones; Links on their owner's Actors; only Tokens as Tokens; a decision on top of
        the prompt stack while the match runs."""
        out: list[str] = []
        seen = [0] * len(self.cid)
        for q in (0, 1):
            if len(self.actors[q]) != ACTOR_ZONES or len(self.specials[q]) != SPECIAL_ZONES:
                out.append(f"player {q} does not have three Actor and three Special zones")
            for code, name in ZONE_LISTS:
                for i in getattr(self, name)[q]:
                    if i < 0:
                        continue
                    seen[i] += 1
                    if self.zone[i] != code or self.owner[i] != q:
                        out.append(f"card {i} listed in {name} of player {q} is not there")
            for link in self.links[q]:
                host = self.host[link]
                if host < 0 or self.zone[host] != Z_ACTOR or self.owner[host] != q:
                    out.append(f"Link {link} is not on an Actor of its owner")
            if any(CARDS[self.cid[i]].kind != K_TOKEN for i in self.tokens[q]):
                out.append(f"player {q} holds a card that is not a Token as a Token")
        if seen != [1] * len(self.cid):
            out.append("a card is in no zone or in two")
        if not self.over and (not self.prompts or self.prompts[-1][0] > P_TARGET):
            out.append(f"no decision on top of the prompt stack: {self.prompts[-1:]}")
        return out

    # ------------------------------------------------------------------ card facts

    def card(self, iid: int) -> str:
        """The catalogue id of an instance."""
        return CARDS[self.cid[iid]].id

    def ego(self, iid: int) -> int:
        """The current EGO of an Actor: base, changes until end of turn, Links, ∞ auras."""
        c = CARDS[self.cid[iid]]
        return self._with_links(iid, c.base_ego + self.ego_mod[iid], 0)

    def intel(self, iid: int) -> int:
        """The current INT of an Actor (same sources as EGO)."""
        c = CARDS[self.cid[iid]]
        return self._with_links(iid, c.base_int + self.int_mod[iid], 1)

    def _with_links(self, iid: int, value: int, stat: int) -> int:
        """`value` plus the EGO (stat 0) or INT (stat 1) of the Links on `iid` and the ∞ auras."""
        o = self.owner[iid]
        cid = self.cid
        host = self.host
        for link in self.links[o]:
            if host[link] == iid:
                card = CARDS[cid[link]]
                value += card.link_int if stat else card.link_ego
        return value + self._aura(o, stat)

    def _aura(self, owner: int, stat: int) -> int:
        total = 0
        faceup = self.faceup
        cid = self.cid
        for q in (0, 1):
            for s in self.specials[q]:
                if s >= 0 and faceup[s]:
                    a = CARDS[cid[s]].aura
                    if a is not None and a[0] == stat and (a[2] == 0) == (q == owner):
                        total += a[1]
        return total

    # ------------------------------------------------------------------ moves used by effects

    def draw_card(self, p: int) -> bool:
        """Move the top card of p's deck to p's hand; False if the deck is empty."""
        deck = self.deck[p]
        if not deck:
            return False
        iid = deck.pop()
        self.hand[p].append(iid)
        self.zone[iid] = Z_HAND
        return True

    def mill(self, p: int, n: int) -> None:
        """Send the top n cards of p's deck to p's Trash."""
        deck = self.deck[p]
        for _ in range(min(n, len(deck))):
            iid = deck.pop()
            self.trash[p].append(iid)
            self.zone[iid] = Z_TRASH

    def search_deck(self, p: int, trait: str) -> None:
        """Move the first card with `trait` (from the top) of p's deck to hand, then shuffle."""
        deck = self.deck[p]
        cid = self.cid
        for i in range(len(deck) - 1, -1, -1):
            c = CARDS[cid[deck[i]]]
            if c.trait == trait and c.kind != K_TOKEN:
                iid = deck.pop(i)
                self.hand[p].append(iid)
                self.zone[iid] = Z_HAND
                break
        self.prng.shuffle(deck)

    def recover_from_trash(self, p: int, kind: int) -> None:
        """Move the last card of `kind` (0 = any but a Token) sent to p's Trash to p's hand."""
        trash = self.trash[p]
        cid = self.cid
        for i in range(len(trash) - 1, -1, -1):
            k = CARDS[cid[trash[i]]].kind
            if k != K_TOKEN and (kind == 0 or k == kind):
                iid = trash.pop(i)
                self.hand[p].append(iid)
                self.zone[iid] = Z_HAND
                return

    def discard_random(self, p: int, n: int) -> None:
        """p discards n cards chosen by the engine's PRNG."""
        hand = self.hand[p]
        for _ in range(min(n, len(hand))):
            iid = hand.pop(self.prng.below(len(hand)))
            self.trash[p].append(iid)
            self.zone[iid] = Z_TRASH

    def grant_extra_plays(self, n: int) -> None:
        """The active player may play n more Actors from hand this turn."""
        self.extra_plays += n

    def host_of(self, iid: int) -> int:
        """The Actor a Link on the field is attached to (-1: none)."""
        return self.host[iid]

    def is_actor_on_field(self, iid: int) -> bool:
        """Whether an instance is an Actor on the field."""
        return self.zone[iid] == Z_ACTOR

    def is_special_on_field(self, iid: int) -> bool:
        """Whether an instance is a Special card on the field."""
        return self.zone[iid] == Z_SPECIAL

    def grant_extra_attacks(self, iid: int, n: int) -> None:
        """An Actor on the field may attack n more times this turn."""
        self.bonus_atk[iid] += n

    def modify_stat(self, iid: int, intel: bool, n: int) -> None:
        """n to an Actor's EGO (INT if `intel`) until end of turn."""
        (self.int_mod if intel else self.ego_mod)[iid] += n

    def switch_position(self, iid: int) -> None:
        """Switch the battle position of a face-up Actor (a face-down one stays as it is)."""
        if self.faceup[iid]:
            self.pos[iid] ^= 1

    def destroy_actor(self, iid: int) -> None:
        """An Actor leaves the field for its owner's Trash (its Links too)."""
        self.remove_actor(iid, Z_TRASH)

    def exile_actor(self, iid: int) -> None:
        """An Actor leaves the field for its owner's Exile (its Links go to the Trash)."""
        self.remove_actor(iid, Z_EXILE)

    def bounce_actor(self, iid: int) -> None:
        """An Actor leaves the field for its owner's hand (its Links go to the Trash)."""
        self.remove_actor(iid, Z_HAND)

    def negate_attack(self) -> None:
        """Negate the attack being declared, if there is one."""
        if self.atk_a >= 0:
            self.atk_neg = 1

    def _reset(self, iid: int) -> None:
        self.faceup[iid] = 0
        self.pos[iid] = ATTACK
        self.set_at[iid] = -1
        self.ego_mod[iid] = 0
        self.int_mod[iid] = 0
        self.attacked[iid] = 0
        self.bonus_atk[iid] = 0
        self.pos_changed[iid] = 0
        self.pos_revert[iid] = 0
        self.host[iid] = -1

    def _put(self, iid: int, dest: int) -> None:
        self.zone[iid] = dest
        getattr(self, _PUT_LISTS[dest])[self.owner[iid]].append(iid)

    def remove_actor(self, iid: int, dest: int) -> None:
        """An Actor leaves the field for `dest`; its Links go to their owner's Trash."""
        o = self.owner[iid]
        row = self.actors[o]
        row[row.index(iid)] = -1
        links = self.links[o]
        if links:
            keep = []
            for link in links:
                if self.host[link] == iid:
                    self._reset(link)
                    self._put(link, Z_TRASH)
                else:
                    keep.append(link)
            self.links[o] = keep
        self._reset(iid)
        self._put(iid, dest)

    def remove_special(self, iid: int) -> None:
        """A Special card leaves the field for its owner's Trash."""
        o = self.owner[iid]
        row = self.specials[o]
        row[row.index(iid)] = -1
        self._reset(iid)
        self._put(iid, Z_TRASH)

    def destroy_token(self, p: int) -> None:
        """Destroy one of p's Token cards (to Trash); p loses when the last one goes."""
        tokens = self.tokens[p]
        if tokens:
            iid = tokens.pop()
            self.trash[p].append(iid)
            self.zone[iid] = Z_TRASH
        if not tokens:
            self._finish(1 - p)

    def restore_token(self, p: int) -> None:
        """Return the last Token card sent to p's Trash to p's Tokens."""
        trash = self.trash[p]
        cid = self.cid
        for i in range(len(trash) - 1, -1, -1):
            if CARDS[cid[trash[i]]].kind == K_TOKEN:
                iid = trash.pop(i)
                self.tokens[p].append(iid)
                self.zone[iid] = Z_TOKEN
                return

    def _finish(self, winner: int) -> None:
        if not self.over:
            self.over = True
            self.win = winner
            self.prompts.clear()

    # ------------------------------------------------------------------ flow

    def _now(self) -> int:
        return self.turn * 8 + self.phase

    def can_respond(self, p: int) -> bool:
        """Whether p gets a response window now: p has a face-down Special not set in this phase.

        The window is offered for any face-down Special (not only » cards), so that being
        offered one never tells the opponent what kind of card is set.
        """
        now = self.turn * 8 + self.phase
        faceup = self.faceup
        set_at = self.set_at
        for s in self.specials[p]:  # noqa: SIM110 - a plain loop is faster on this hot path
            if s >= 0 and not faceup[s] and set_at[s] != now:
                return True
        return False

    def _window(self, p: int, stage: int = W_OPEN) -> None:
        # pushed only when usable now; settle() checks again when it reaches the top of the stack
        if self.can_respond(p):
            self.prompts.append((P_RESPONSE, p, stage))

    def close_window(self) -> None:
        """The player of the response window on top passes: a chain window moves on to the
        other player (W_CHAIN_SECOND); after the second pass the chain below resolves."""
        _, p, stage = self.prompts.pop()
        if stage == W_CHAIN_FIRST:
            self._window(1 - p, W_CHAIN_SECOND)

    def chain_link(self, source: int, target: int) -> int:
        """The arg of an S_RESOLVE prompt: the activated card and its target (-1: none)."""
        return (target + 1) * len(self.cid) + source

    def link_parts(self, arg: int) -> tuple[int, int]:
        """(source, target) of an S_RESOLVE prompt's arg."""
        t, source = divmod(arg, len(self.cid))
        return source, t - 1

    def settle(self) -> None:
        """Run automatic steps and phase changes until a player must decide or the match ends."""
        prompts = self.prompts
        while not self.over:
            if not prompts:
                self.enter_phase(self.phase + 1)
                continue
            kind, player, _ = prompts[-1]
            if kind <= P_BATTLE or kind == P_TARGET:
                return
            if kind == P_RESPONSE:
                if self.can_respond(player):
                    return
                self.close_window()
            elif kind == S_DAMAGE:
                prompts.pop()
                self._damage()
            elif kind == S_RESOLVE:
                source, target = self.link_parts(prompts.pop()[2])
                self._resolve(source, player, target)
            else:
                prompts.pop()
                self._end_turn()

    def enter_phase(self, phase: int) -> None:
        """Begin `phase` of the active player's turn: its automatic part, then its prompts."""
        self.phase = phase
        a = self.active
        o = 1 - a
        push = self.prompts.append
        if phase == DRAW:
            if self.turn > 1 and not self.draw_card(a):
                self._finish(o)
                return
            self._window(o)
            self._window(a)
        elif phase == STANDBY:
            self._window(o)
            self._window(a)
        elif phase in (MAIN1, MAIN2):
            if phase == MAIN2 and self.rev >= 2 and self.plays_used + self.links_used:
                # "You can play Actor or Link cards from your hand only if you did not use
                # your last Main phase to play any": both plays of the turn are used up
                self.played_main1 = 1
                self.plays_used = max(self.plays_used, 1)
                self.links_used = 1
            push((P_MAIN, a, 0))
            self._window(o)
        elif phase == BATTLE:
            # no Battle phase on the first turn; no prompt when the player could only end it
            if self.turn > 1:
                if self._can_attack(a) or self.can_respond(a):
                    push((P_BATTLE, a, 0))
                self._window(o)
        else:
            push((S_ENDTURN, a, 0))
            self._window(o)
            self._window(a)

    def _can_attack(self, p: int) -> bool:
        for i in self.actors[p]:
            if (
                i >= 0
                and self.faceup[i]
                and self.pos[i] == ATTACK
                and self.attacked[i] <= self.bonus_atk[i]
            ):
                return True
        return False

    def _end_turn(self) -> None:
        for p in (0, 1):
            for i in self.actors[p]:
                if i >= 0:
                    self.ego_mod[i] = 0
                    self.int_mod[i] = 0
                    self.attacked[i] = 0
                    self.bonus_atk[i] = 0
                    self.pos_changed[i] = 0
                    if self.pos_revert[i]:
                        self.pos[i] ^= 1
                        self.pos_revert[i] = 0
        self.turn += 1
        self.active ^= 1
        self.plays_used = 0
        self.extra_plays = 0
        self.links_used = 0
        self.played_main1 = 0
        self.enter_phase(DRAW)

    def start_effect(self, src: int, controller: int) -> None:
        """A card's effect activates: ask for its target if there is a choice, then `activate`."""
        c = CARDS[self.cid[src]]
        if c.target is not None:
            cands = self.targets(c.target, controller)
            if len(cands) > 1:
                self.prompts.append((P_TARGET, controller, src))
                return
            self.activate(src, controller, cands[0] if cands else -1)
        else:
            self.activate(src, controller, -1)

    def activate(self, src: int, controller: int, target: int) -> None:
        """An effect with its target chosen: ruleset 1 resolves it now; ruleset 2 puts an effect
        that does something on resolution on the response chain (an S_RESOLVE link) and opens
        a chain window, the opponent first (a continuous effect applies at once)."""
        if self.rev == 1 or not CARDS[self.cid[src]].resolves:
            self._resolve(src, controller, target)
            return
        self.prompts.append((S_RESOLVE, controller, self.chain_link(src, target)))
        self._window(1 - controller, W_CHAIN_FIRST)

    def targets(self, spec: str, controller: int) -> list[int]:
        """The instances a card's `target` spec may choose, in zone order."""
        if spec == "opp_actor":
            return [i for i in self.actors[1 - controller] if i >= 0]
        if spec == "own_actor":
            return [i for i in self.actors[controller] if i >= 0]
        return [i for i in self.specials[1 - controller] if i >= 0]

    def _resolve(self, src: int, controller: int, target: int) -> None:
        c = CARDS[self.cid[src]]
        if (
            target >= 0
            and c.target is not None
            and target not in self.targets(c.target, controller)
        ):
            target = -1  # the target left the field (or changed sides) before the link resolved
        if c.effect.steps:
            run_effect(self, c.effect, EffectFrame(c.index, src, controller, 0, target))
        if c.kind == K_SPECIAL and c.subtype != S_CONTINUOUS and self.zone[src] == Z_SPECIAL:
            self.remove_special(src)

    def _damage(self) -> None:
        a, t, negated = self.atk_a, self.atk_t, self.atk_neg
        self.atk_a = self.atk_t = -1
        self.atk_neg = 0
        if negated or self.zone[a] != Z_ACTOR or not self.faceup[a] or self.pos[a] != ATTACK:
            return
        if t < 0:
            if self.ego(a) > 0:
                self.destroy_token(1 - self.owner[a])
            return
        if self.zone[t] != Z_ACTOR:
            return
        ea = self.ego(a)
        if self.pos[t] == ATTACK:
            et = self.ego(t)
            if self.rev == 1:  # ruleset 1 sent both Actors to Trash on equal EGO
                if ea >= et:
                    self.remove_actor(t, Z_TRASH)
                if et >= ea:
                    self.remove_actor(a, Z_TRASH)
            elif ea > et:  # "If your Actor's EGO is higher ..., send their Actor to trash"
                self.remove_actor(t, Z_TRASH)
            elif et > ea:  # "If their EGO is higher, your Actor goes to trash."
                self.remove_actor(a, Z_TRASH)
        else:
            it = self.intel(t)
            if it > ea:
                self.pos[a] = DEFENSE
                self.pos_revert[a] = 1
            elif ea > it:
                self.remove_actor(t, Z_TRASH)

"""The actions of a MetaMasters match: which are legal now, and how each is checked and applied.

Every action is `[kind, *args]`. `_check` validates one without building the legal-action list
(every candidate of `legal_actions` goes through it too, so the two can never disagree), and
`_do` applies a valid one; `MetaMastersRules._apply_each` is the one path of play and replay.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from engine.core.actions import Action
from engine.core.errors import IllegalAction
from engine.metamasters.cards import (
    CARDS,
    K_ACTOR,
    K_LINK,
    K_SPECIAL,
    S_CONTINUOUS,
    S_NORMAL,
    T_OMEGA,
    T_SIGMA,
)
from engine.metamasters.state import (
    ATTACK,
    DEFENSE,
    MAIN2,
    P_BATTLE,
    P_MAIN,
    P_RESPONSE,
    P_TARGET,
    PROMPT_NAMES,
    S_DAMAGE,
    W_CHAIN_FIRST,
    W_OPEN,
    Z_ACTOR,
    Z_HAND,
    Z_LINK,
    Z_SPECIAL,
    Z_TRASH,
    MetaMastersBoard,
)

_MAIN_KINDS = frozenset({"play", "set", "link", "activate", "flip", "position", "next"})
_BATTLE_KINDS = frozenset({"attack", "direct", "activate", "next"})
_RESPONSE_KINDS = frozenset({"activate", "pass"})
_TARGET_KINDS = frozenset({"target"})
_KINDS_BY_PROMPT = {
    P_MAIN: _MAIN_KINDS,
    P_BATTLE: _BATTLE_KINDS,
    P_RESPONSE: _RESPONSE_KINDS,
    P_TARGET: _TARGET_KINDS,
}
_ALL_KINDS = _MAIN_KINDS | _BATTLE_KINDS | _RESPONSE_KINDS | _TARGET_KINDS
#: every action kind -> (fewest, most) arguments
ACTION_ARITY = {
    "play": (1, 2),
    "set": (1, 2),
    "link": (2, 2),
    "activate": (1, 1),
    "flip": (1, 1),
    "position": (1, 1),
    "next": (0, 0),
    "attack": (2, 2),
    "direct": (1, 1),
    "pass": (0, 0),
    "target": (1, 1),
}

Err = tuple[str, str] | None

_MAIN2_BLOCKED: Err = (
    "metamasters.main2.played_in_main1",
    "you played an Actor or a Link from your hand in Main 1, so Main 2 allows neither "
    "(only the extra plays a card effect gives)",
)


class MetaMastersRules(MetaMastersBoard):
    """A MetaMasters match with its actions: `legal_actions`, `_check` and `_do`."""

    __slots__ = ()

    # ------------------------------------------------------------------ validation

    def _check(self, kind: str, args: Sequence[int]) -> Err:
        """Why the action is illegal now (rule, message), or None if it is legal."""
        if self.over:
            return ("metamasters.match.over", "the match is over")
        if kind not in _ALL_KINDS:
            return ("metamasters.action.unknown", f"unknown action {kind!r}")
        lo, hi = ACTION_ARITY[kind]
        if not lo <= len(args) <= hi:
            return ("metamasters.action.args", f"{kind} takes {lo}..{hi} arguments")
        n = len(self.cid)
        for x in args:
            if not 0 <= x < n:
                return ("metamasters.action.card", f"no card instance {x}")
        pk, p, parg = self.prompts[-1]
        if kind not in _KINDS_BY_PROMPT[pk]:
            if kind in ("attack", "direct"):
                if self.turn == 1:
                    return (
                        "metamasters.battle.first_turn",
                        "there is no Battle phase on the first turn of the match",
                    )
                return ("metamasters.battle.phase", "attacks are declared in your Battle phase")
            if kind in _MAIN_KINDS and kind != "next":
                return ("metamasters.phase.main", f"{kind} is done in your Main phases")
            return (
                "metamasters.prompt.unexpected",
                f"{kind} does not answer the {PROMPT_NAMES[pk]} prompt",
            )
        if not args:  # next, pass: nothing more to check
            return None
        if kind == "play":
            return self._check_actor(p, args)
        if kind == "set":
            return self._check_set(p, args)
        if kind == "link":
            return self._check_link(p, args[0], args[1])
        if kind == "activate":
            return self._check_activate(p, args[0], pk)
        if kind == "flip" or kind == "position":
            return self._check_position(p, args[0], kind == "flip")
        if kind == "attack" or kind == "direct":
            return self._check_attack(p, args)
        if kind == "target":
            c = CARDS[self.cid[parg]]
            if c.target is None or args[0] not in self.targets(c.target, p):
                return ("metamasters.target.invalid", "not a target this effect may choose")
        return None

    def _in_hand(self, p: int, iid: int) -> Err:
        if self.zone[iid] != Z_HAND or self.owner[iid] != p:
            return ("metamasters.card.not_in_hand", "that card is not in your hand")
        return None

    def _check_actor(self, p: int, args: Sequence[int]) -> Err:
        iid = args[0]
        err = self._in_hand(p, iid)
        if err:
            return err
        c = CARDS[self.cid[iid]]
        if c.kind != K_ACTOR:
            if c.kind == K_LINK:
                return (
                    "metamasters.link.attach",
                    "a Link is played by attaching it to one of your Actors",
                )
            return (
                "metamasters.special.activate",
                "a Special card is activated or set, not played",
            )
        if self.plays_used >= 1 + self.extra_plays:
            if self.played_main1 and self.phase == MAIN2:
                return _MAIN2_BLOCKED
            return (
                "metamasters.actor.one_per_turn",
                "you already played an Actor from your hand this turn",
            )
        if c.subtype == T_OMEGA:
            if len(args) != 2:
                return (
                    "metamasters.actor.omega_tribute",
                    "an Ω Actor needs one of your Actors sent to Trash",
                )
            t = args[1]
            if self.zone[t] != Z_ACTOR or self.owner[t] != p:
                return (
                    "metamasters.actor.omega_tribute",
                    "the tribute must be one of your Actors on the field",
                )
        else:
            if len(args) != 1:
                return ("metamasters.actor.no_tribute", "only Ω Actors take a tribute")
            if -1 not in self.actors[p]:
                return ("metamasters.zone.actors_full", "all three of your Actor zones are filled")
        if c.subtype == T_SIGMA:
            for key, value in c.condition:
                if not self._condition(p, key, value):
                    return (
                        "metamasters.actor.sigma_condition",
                        f"{c.name} needs {key.replace('_', ' ')} {value}",
                    )
        return None

    def _condition(self, p: int, key: str, value: int) -> bool:
        if key == "trash_at_least":
            return len(self.trash[p]) >= value
        if key == "actors_at_least":
            return sum(1 for i in self.actors[p] if i >= 0) >= value
        if key == "tokens_at_most":
            return len(self.tokens[p]) <= value
        return sum(1 for i in self.actors[1 - p] if i >= 0) >= value

    def _check_set(self, p: int, args: Sequence[int]) -> Err:
        iid = args[0]
        kind = CARDS[self.cid[iid]].kind
        if kind == K_ACTOR:  # an Actor is set face-down by the rules of playing one
            return self._check_actor(p, args)
        err = self._in_hand(p, iid)
        if err:
            return err
        if kind == K_LINK:
            return ("metamasters.link.cannot_set", "Link cards cannot be set")
        if len(args) != 1:
            return ("metamasters.action.args", "set takes one card")
        if -1 not in self.specials[p]:
            return ("metamasters.zone.specials_full", "all three of your Special zones are filled")
        return None

    def _check_link(self, p: int, iid: int, host: int) -> Err:
        err = self._in_hand(p, iid)
        if err:
            return err
        if CARDS[self.cid[iid]].kind != K_LINK:
            return ("metamasters.link.not_link", "only Link cards attach to Actors")
        if self.links_used >= 1:
            if self.played_main1 and self.phase == MAIN2:
                return _MAIN2_BLOCKED
            return (
                "metamasters.link.one_per_turn",
                "you already played a Link from your hand this turn",
            )
        if self.zone[host] != Z_ACTOR or self.owner[host] != p:
            return ("metamasters.link.host", "a Link attaches to one of your Actors on the field")
        return None

    def _check_activate(self, p: int, iid: int, pk: int) -> Err:
        if self.owner[iid] != p:
            return ("metamasters.card.not_yours", "that card is not yours")
        c = CARDS[self.cid[iid]]
        z = self.zone[iid]
        if z == Z_HAND:
            if c.kind != K_SPECIAL:
                return ("metamasters.special.not_special", "only Special cards are activated")
            if pk != P_MAIN:
                return (
                    "metamasters.special.hand_main_phase",
                    "Special cards are activated from your hand in your Main phases",
                )
            if -1 not in self.specials[p]:
                return (
                    "metamasters.zone.specials_full",
                    "all three of your Special zones are filled",
                )
            return None
        if z != Z_SPECIAL:
            return (
                "metamasters.special.not_available",
                "that card is neither in your hand nor set on your field",
            )
        if self.faceup[iid]:
            return ("metamasters.special.already_active", "that Special card is already face-up")
        if c.subtype == S_NORMAL:
            if pk != P_MAIN:
                return (
                    "metamasters.special.main_phase",
                    "unmarked Special cards are activated in your Main phases",
                )
            if self.set_at[iid] // 8 == self.turn:
                return (
                    "metamasters.special.set_this_turn",
                    "an unmarked Special set this turn waits until your next turn",
                )
        elif c.subtype == S_CONTINUOUS:
            if pk != P_MAIN:
                return (
                    "metamasters.special.main_phase",
                    "∞ Special cards are activated in your Main phases",
                )
            if self.set_at[iid] == self._now():
                return (
                    "metamasters.special.same_phase",
                    "a set Special card cannot be activated in the phase it was set",
                )
        elif self.set_at[iid] == self._now():
            return (
                "metamasters.special.same_phase",
                "a set » card cannot be activated in the phase it was set",
            )
        return None

    def _check_position(self, p: int, iid: int, flip: bool) -> Err:
        if self.zone[iid] != Z_ACTOR or self.owner[iid] != p:
            return (
                "metamasters.position.not_your_actor",
                "that is not one of your Actors on the field",
            )
        if self.turn == 1:
            return (
                "metamasters.position.first_turn",
                "battle positions cannot change on the first turn of the match",
            )
        if self.rev >= 2 and self.faceup[iid] and self.set_at[iid] // 8 == 1:
            return (
                "metamasters.position.played_first_turn",
                "Actors played during the first turn of the match cannot change their battle "
                "position during any main phase",
            )
        if flip:
            if self.faceup[iid]:
                return ("metamasters.position.face_up", "that Actor is already face-up")
            if self.set_at[iid] // 8 == self.turn:
                return (
                    "metamasters.position.set_this_turn",
                    "an Actor set this turn cannot be flipped this turn",
                )
        elif not self.faceup[iid]:
            return (
                "metamasters.position.face_down",
                "a set Actor changes position by being flipped",
            )
        if self.phase == MAIN2 and self.attacked[iid]:
            return (
                "metamasters.position.attacked",
                "in Main 2 only Actors that did not attack change position",
            )
        # ruleset 2 sets no limit: the rulebook has none (an Actor whose attack a higher INT
        # negated has attacked, so Main 2 already keeps its changed position)
        if self.rev == 1 and (self.pos_changed[iid] or self.pos_revert[iid]):
            return (
                "metamasters.position.once_per_turn",
                "that Actor's battle position already changed this turn",
            )
        return None

    def _check_attack(self, p: int, args: Sequence[int]) -> Err:
        a = args[0]
        if self.zone[a] != Z_ACTOR or self.owner[a] != p:
            return (
                "metamasters.battle.attacker",
                "the attacker must be one of your Actors on the field",
            )
        if not self.faceup[a] or self.pos[a] != ATTACK:
            return ("metamasters.battle.attack_position", "only Actors in attack position attack")
        if self.attacked[a] >= 1 + self.bonus_atk[a]:
            return ("metamasters.battle.once", "that Actor has already attacked this turn")
        if len(args) == 2:
            t = args[1]
            if self.zone[t] != Z_ACTOR or self.owner[t] == p:
                return (
                    "metamasters.battle.target",
                    "the target must be an opponent Actor on the field",
                )
        elif any(i >= 0 for i in self.actors[1 - p]):
            return (
                "metamasters.battle.direct_blocked",
                "the opponent has an Actor: attack it first",
            )
        return None

    # ------------------------------------------------------------------ applying

    def _apply_each(self, actions: Iterable[Sequence[Any]]) -> None:
        """Apply each action in order: validate it (cheaply, without listing legal actions),
        apply it, then run the automatic steps until a player must decide."""
        for raw in actions:
            kind = raw[0]
            if len(raw) == 1 and not self.over:
                # the most frequent actions: end a phase, close a response window
                top = self.prompts[-1][0]
                if kind == "pass" and top == P_RESPONSE:
                    self.close_window()
                    self.settle()
                    continue
                if kind == "next" and top <= P_BATTLE:
                    self.prompts.pop()
                    self.settle()
                    continue
            args = raw[1:]
            err = self._check(kind, args)
            if err is not None:
                raise IllegalAction(err[0], err[1])
            self._do(kind, args)
            self.settle()

    def _do(self, kind: str, args: Sequence[int]) -> None:
        """Apply an action `_check` found legal."""
        if not args:  # next, pass
            if kind == "pass":
                self.close_window()
            else:
                self.prompts.pop()
            return
        pk, p, parg = self.prompts[-1]
        o = 1 - p
        rev = self.rev
        if kind == "target":
            self.prompts.pop()
            self.activate(parg, p, args[0])
            return
        active_turn = pk in (P_MAIN, P_BATTLE)
        iid = args[0]
        if kind == "attack" or kind == "direct":
            self.attacked[iid] += 1
            self.atk_a = iid
            self.atk_t = args[1] if kind == "attack" else -1
            self.atk_neg = 0
            self.prompts.append((S_DAMAGE, p, 0))
            if rev == 1:
                self._window(o)
            t = self.atk_t
            if t >= 0 and not self.faceup[t]:
                self.faceup[t] = 1
                if rev >= 2:
                    self.set_at[t] = -1
                self.start_effect(t, o)
            if rev >= 2 and self.prompts and self.prompts[-1][0] == S_DAMAGE:
                # nothing was activated on top of the attack: the chain window answers it
                self._window(o, W_CHAIN_FIRST)
            return
        if active_turn:
            self._window(o)
        elif rev >= 2 and parg != W_OPEN:
            # a response in a chain window: the new link gets a chain window of its own
            self.prompts.pop()
        if kind == "play" or (kind == "set" and CARDS[self.cid[iid]].kind == K_ACTOR):
            self.hand[p].remove(iid)
            if len(args) == 2:
                self.remove_actor(args[1], Z_TRASH)
            row = self.actors[p]
            row[row.index(-1)] = iid
            self.zone[iid] = Z_ACTOR
            self.plays_used += 1
            if kind == "play":
                self.faceup[iid] = 1
                self.pos[iid] = ATTACK
                if rev >= 2:
                    self.set_at[iid] = self._now()
                self.start_effect(iid, p)
            else:
                self.faceup[iid] = 0
                self.pos[iid] = DEFENSE
                self.set_at[iid] = self._now()
        elif kind == "set":
            self.hand[p].remove(iid)
            row = self.specials[p]
            row[row.index(-1)] = iid
            self.zone[iid] = Z_SPECIAL
            self.faceup[iid] = 0
            self.set_at[iid] = self._now()
        elif kind == "link":
            self.hand[p].remove(iid)
            self.links[p].append(iid)
            self.zone[iid] = Z_LINK
            self.faceup[iid] = 1
            self.host[iid] = args[1]
            self.links_used += 1
            self.start_effect(iid, p)
        elif kind == "activate":
            if self.zone[iid] == Z_HAND:
                self.hand[p].remove(iid)
                row = self.specials[p]
                row[row.index(-1)] = iid
                self.zone[iid] = Z_SPECIAL
            self.faceup[iid] = 1
            self.start_effect(iid, p)
        elif kind == "flip":
            self.faceup[iid] = 1
            self.pos[iid] = ATTACK
            self.pos_changed[iid] = 1
            if rev >= 2:
                self.set_at[iid] = -1
            self.start_effect(iid, p)
        elif kind == "position":
            self.pos[iid] ^= 1
            self.pos_changed[iid] = 1

    # ------------------------------------------------------------------ legal actions

    def legal_actions(self) -> list[Action]:
        """Every legal action of the current player, in a deterministic order."""
        if self.over or not self.prompts:
            return []
        pk, p, parg = self.prompts[-1]
        out: list[Action] = []
        # every candidate goes through apply's own validator, so the two can never disagree
        check = self._check
        if pk == P_TARGET:
            c = CARDS[self.cid[parg]]
            return [Action("target", (t,)) for t in self.targets(c.target or "", p)]
        if pk == P_RESPONSE:
            for s in self.specials[p]:
                if s >= 0 and check("activate", (s,)) is None:
                    out.append(Action("activate", (s,)))
            out.append(Action("pass"))
            return out
        own = [i for i in self.actors[p] if i >= 0]
        if pk == P_BATTLE:
            opp = [i for i in self.actors[1 - p] if i >= 0]
            for a in own:
                if self._check_attack(p, (a,) if not opp else (a, opp[0])) is not None:
                    continue
                if opp:
                    out.extend(Action("attack", (a, t)) for t in opp)
                else:
                    out.append(Action("direct", (a,)))
            for s in self.specials[p]:
                if s >= 0 and check("activate", (s,)) is None:
                    out.append(Action("activate", (s,)))
            out.append(Action("next"))
            return out
        for iid in self.hand[p]:
            c = CARDS[self.cid[iid]]
            if c.kind == K_ACTOR:
                for args in [(iid, t) for t in own] if c.subtype == T_OMEGA else [(iid,)]:
                    out.extend(
                        a for a in (Action("play", args), Action("set", args)) if check(*a) is None
                    )
            elif c.kind == K_LINK:
                out.extend(a for a in (Action("link", (iid, h)) for h in own) if check(*a) is None)
            elif c.kind == K_SPECIAL:
                out.extend(
                    a
                    for a in (Action("activate", (iid,)), Action("set", (iid,)))
                    if check(*a) is None
                )
        for s in self.specials[p]:
            if s >= 0 and check("activate", (s,)) is None:
                out.append(Action("activate", (s,)))
        for a in own:
            act = Action("flip" if not self.faceup[a] else "position", (a,))
            if check(*act) is None:
                out.append(act)
        out.append(Action("next"))
        return out

"""The actions of a MetaX match: which are legal now, and how each is checked and applied.

Every action is `[kind, *args]`; `_DISPATCH` maps a kind to its handler, the prompt it answers
and its argument counts. A handler validates first and mutates after, so a rejected action
leaves the state unchanged; `MetaXRules._apply` is the one path of play and replay.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from engine.core.actions import Action
from engine.core.effects import resume_effect
from engine.metax.cards import (
    BATTLE,
    CHARACTER,
    EVENT,
    ON_ATTACK,
    ON_DEFENSE,
    PLAYED,
    PUSH,
    STAT_NAMES,
)
from engine.metax.state import (
    A_DCARD,
    A_DEF,
    A_DONE,
    A_LEAD,
    BSTATS,
    EFFECT,
    EFFECT_KIND,
    HAND_SIZE,
    KIND,
    LINK_COST,
    MAX_MP,
    MP,
    NAME,
    P_ATTACKS,
    P_CHOICE,
    P_DAMAGE,
    P_DEFENSE,
    P_FIRST,
    P_LINK_COST,
    P_MULLIGAN,
    P_ORDER,
    P_PLANNING,
    PROMPT_NAMES,
    RANK,
    MetaXBoard,
    illegal,
)


class MetaXRules(MetaXBoard):
    """A MetaX match with its actions: `legal_actions` and `_apply` (validate, then apply)."""

    __slots__ = ()

    def legal_actions(self) -> list[Action]:
        """Every legal action of the current player, in a deterministic order."""
        if self.over:
            return []
        top = self.stack[-1]
        kind = top[0]
        p = top[1]
        if kind == P_PLANNING:
            return self._planning_actions(p)
        if kind == P_ATTACKS:
            return self._attack_actions(p)
        if kind == P_DEFENSE:
            out = self._defense_actions(p)
            out.append(Action("end_defense"))
            return out
        if kind == P_CHOICE:
            frame, _, step = self.pending_choice()
            acts = [Action("choose", (c,)) for c in step.candidates(self, frame)]
            if step.optional:
                acts.append(Action("choose", (-1,)))
            return acts
        if kind == P_DAMAGE:
            return [
                Action("resolve", (a[A_LEAD],))
                for a in self.attacks
                if a[A_DEF] >= 0 and not a[A_DONE]
            ]
        if kind == P_ORDER:
            return [Action("bottom", (i,)) for i in self.hands[p]]
        if kind == P_MULLIGAN:
            return [Action("keep"), Action("mulligan")]
        return [Action("first_player", (0,)), Action("first_player", (1,))]

    def _apply_each(self, actions: Iterable[Sequence[Any]]) -> None:
        """Apply each action in order: check that it answers the prompt on top with the right
        number of arguments, then run its handler (which validates the rest before changing
        anything)."""
        for raw in actions:
            kind = raw[0]
            stack = self.stack
            if stack and len(raw) == 1:
                # the two commonest actions (over 40% of a match) only close a step: their
                # rule is here, and nowhere else (their _DISPATCH entries name their prompt)
                top = stack[-1]
                if kind == "end_planning" and top[0] == P_PLANNING:
                    stack[-1] = (P_ATTACKS, top[1])
                    continue
                if kind == "end_attacks" and top[0] == P_ATTACKS:
                    stack.pop()
                    if self.attacks:  # the defending player assigns defenders
                        stack.append((P_DEFENSE, 1 - self.active))
                    else:
                        self.end_turn()
                    continue
            entry = _DISPATCH.get(kind)
            if not stack or self.over:  # (ruleset 1 may keep a prompt on a finished match)
                raise illegal("flow.game-over", "the match is over")
            if entry is None:
                raise illegal("flow.unknown-action", f"unknown action kind {kind!r}")
            top = stack[-1]
            if top[0] != entry[1]:
                raise illegal(
                    "flow.not-now",
                    f"{kind!r} is not possible now (waiting for {PROMPT_NAMES[top[0]]} from player {top[1]})",
                )
            handler, _, counts = entry
            if len(raw) - 1 not in counts or handler is None:
                raise illegal(
                    "flow.arguments", f"{kind!r} takes {'/'.join(map(str, counts))} argument(s)"
                )
            handler(self, top[1], raw)

    # --- legal action generation ---------------------------------------------------------

    def _planning_actions(self, p: int) -> list[Action]:
        out: list[Action] = []
        cards = self.cards
        mp = self.mp[p]
        can_char = not self.played_char and -1 in self.chars[p]
        for iid in self.hands[p]:
            cid = cards[iid]
            k = KIND[cid]
            if k == CHARACTER:
                if can_char:
                    out.append(Action("play_character", (iid,)))
            elif k == EVENT and MP[cid] <= mp:
                out.append(Action("play_event", (iid,)))
        turn = self.turn
        for s, c in enumerate(self.chars[p]):
            if (
                c >= 0
                and not self.pushed[p][s]
                and self.entered[p][s] != turn
                and EFFECT_KIND[cards[c]] == PUSH
            ):
                out.append(Action("push_effect", (c,)))
        out.append(Action("end_planning"))
        return out

    def _attack_actions(self, p: int, first_only: bool = False) -> list[Action]:
        out: list[Action] = []
        cards = self.cards
        mp = self.mp[p]
        turn = self.turn
        ready = [
            c
            for s, c in enumerate(self.chars[p])
            if c >= 0 and not self.pushed[p][s] and self.entered[p][s] != turn
        ]
        if ready:
            bcs = [i for i in self.hands[p] if KIND[cards[i]] == BATTLE and mp + MP[cards[i]] >= 0]
            if bcs:
                stats = {c: self.stats(c) for c in ready}
                for c in ready:
                    st = stats[c]
                    for b in bcs:
                        cid = cards[b]
                        r = RANK[cid]
                        if any(st[k] >= r for k in BSTATS[cid]):
                            out.append(Action("attack", (c, b)))
                            if first_only:
                                return out
                if len(ready) >= 2:
                    self._team_actions(ready, bcs, stats, mp, out)
        if first_only:
            return out
        out.append(Action("end_attacks"))
        return out

    def _team_actions(
        self,
        ready: list[int],
        bcs: list[int],
        stats: dict[int, Sequence[int]],
        mp: int,
        out: list[Action],
    ) -> None:
        cards = self.cards
        for lead in ready:
            st = stats[lead]
            others = [c for c in ready if c != lead]
            for b in bcs:
                cid = cards[b]
                r = RANK[cid]
                if not any(st[k] >= r for k in BSTATS[cid]):
                    continue
                after = min(MAX_MP, mp + MP[cid]) if MP[cid] > 0 else mp + MP[cid]
                if after < LINK_COST:
                    continue
                for k in BSTATS[cid]:
                    sharers = [c for c in others if stats[c][k]]
                    for x in sharers:
                        out.append(Action("team_attack", (lead, b, k, x)))
                    if len(sharers) == 2 and after >= 2 * LINK_COST:
                        out.append(Action("team_attack", (lead, b, k, sharers[0], sharers[1])))

    def _defense_actions(self, p: int, first_only: bool = False) -> list[Action]:
        out: list[Action] = []
        open_attacks = [a[A_LEAD] for a in self.attacks if a[A_DEF] < 0]
        if not open_attacks:
            return out
        cards = self.cards
        mp = self.mp[p]
        bcs = [i for i in self.hands[p] if KIND[cards[i]] == BATTLE and mp + MP[cards[i]] >= 0]
        if not bcs:
            return out
        busy = {a[A_DEF] for a in self.attacks}
        for s, d in enumerate(self.chars[p]):
            if d < 0 or self.pushed[p][s] or d in busy:
                continue
            st = self.stats(d)
            playable = [b for b in bcs if any(st[k] >= RANK[cards[b]] for k in BSTATS[cards[b]])]
            for lead in open_attacks:
                for b in playable:
                    out.append(Action("defend", (d, lead, b)))
                    if first_only:
                        return out
        return out


# --- action handlers (validate first, then mutate) ------------------------------------------


def _first_player(st: MetaXBoard, p: int, action: Sequence[Any]) -> None:
    _, who = action
    if who not in (0, 1):
        raise illegal("setup.first-player", "the first player is 0 or 1")
    st.stack.pop()
    st.first = who
    st.active = who
    st.stack.append((P_MULLIGAN, 1 - who))
    st.stack.append((P_MULLIGAN, who))


def _next_setup(st: MetaXBoard) -> None:
    if not st.stack:
        st.turn = 1
        st.start_turn()


def _keep(st: MetaXBoard, p: int, action: Sequence[Any]) -> None:
    st.stack.pop()
    _next_setup(st)


def _mulligan(st: MetaXBoard, p: int, action: Sequence[Any]) -> None:
    st.stack.pop()
    st.stack.append((P_ORDER, p))


def _bottom(st: MetaXBoard, p: int, action: Sequence[Any]) -> None:
    _, iid = action
    hand = st.hands[p]
    if iid not in hand:
        raise illegal("setup.mulligan-order", "that card is not one of the cards being put back")
    hand.remove(iid)
    st.decks[p].insert(0, iid)
    if len(hand) == 1:
        st.decks[p].insert(0, hand.pop())
    if not hand:
        st.stack.pop()
        st.draw(p, HAND_SIZE)
        if not st.over:
            _next_setup(st)


def _in_hand(st: MetaXBoard, p: int, iid: int, kind: int, rule: str, what: str) -> int:
    if iid not in st.hands[p]:
        raise illegal(rule + ".not-in-hand", "that card is not in your hand")
    cid = st.cards[iid]
    if KIND[cid] != kind:
        raise illegal(rule + ".wrong-kind", f"{NAME[cid]} is not {what}")
    return cid


def _play_character(st: MetaXBoard, p: int, action: Sequence[Any]) -> None:
    _, iid = action
    cid = _in_hand(st, p, iid, CHARACTER, "planning", "a Character")
    if st.played_char:
        raise illegal("planning.one-character-per-turn", "you already played a Character this turn")
    slots = st.chars[p]
    if -1 not in slots:
        raise illegal("planning.character-limit", "you already control three Characters")
    s = slots.index(-1)
    st.hands[p].remove(iid)
    slots[s] = iid
    st.pushed[p][s] = 0
    st.entered[p][s] = st.turn
    st.dmg[p][s] = []
    st.played_char = True
    st.gain_mp(p, MP[cid])
    if EFFECT_KIND[cid] == PLAYED:
        st.start_effect(iid, p)


def _play_event(st: MetaXBoard, p: int, action: Sequence[Any]) -> None:
    _, iid = action
    cid = _in_hand(st, p, iid, EVENT, "planning", "an Event")
    if MP[cid] > st.mp[p]:
        raise illegal("planning.event-cost", f"{NAME[cid]} costs {MP[cid]} MP; you have {st.mp[p]}")
    st.hands[p].remove(iid)
    st.mp[p] -= MP[cid]
    st.limbo[p].append(iid)
    st.start_effect(iid, p)


def _own_character(st: MetaXBoard, p: int, iid: int, rule: str) -> int:
    if iid < 0 or iid not in st.chars[p]:
        raise illegal(rule, "that card is not a Character you control")
    return st.chars[p].index(iid)


def _push_effect(st: MetaXBoard, p: int, action: Sequence[Any]) -> None:
    _, iid = action
    s = _own_character(st, p, iid, "planning.not-your-character")
    cid = st.cards[iid]
    if EFFECT_KIND[cid] != PUSH:
        raise illegal("planning.no-push-effect", f"{NAME[cid]} has no Push effect")
    if st.entered[p][s] == st.turn:
        raise illegal("planning.push-entered-this-turn", f"{NAME[cid]} entered play this turn")
    if st.pushed[p][s]:
        raise illegal("planning.push-already-pushed", f"{NAME[cid]} is already pushed")
    st.pushed[p][s] = 1
    st.start_effect(iid, p)


def _check_attacker(st: MetaXBoard, p: int, c: int) -> int:
    s = _own_character(st, p, c, "battle.not-your-character")
    if st.entered[p][s] == st.turn:
        raise illegal("battle.entered-this-turn", f"{st.name(c)} entered play this turn")
    if st.pushed[p][s]:
        raise illegal("battle.attacker-pushed", f"{st.name(c)} is pushed")
    return s


def _check_battle_card(st: MetaXBoard, p: int, s: int, b: int) -> int:
    cid = _in_hand(st, p, b, BATTLE, "battle", "a Battle Card")
    stats = st.stats_at(p, s)
    rank = RANK[cid]
    for k in BSTATS[cid]:
        if stats[k] >= rank:
            break
    else:
        raise illegal(
            "battle.stat-requirement",
            f"{st.name(st.chars[p][s])} does not meet rank {rank} in any stat of {NAME[cid]}",
        )
    if st.mp[p] + MP[cid] < 0:
        raise illegal("battle.card-cost", f"{NAME[cid]} costs {-MP[cid]} MP; you have {st.mp[p]}")
    return cid


def _play_battle_card(st: MetaXBoard, p: int, b: int, cid: int) -> None:
    st.hands[p].remove(b)
    st.limbo[p].append(b)
    if MP[cid] > 0:
        st.gain_mp(p, MP[cid])
    else:
        st.mp[p] += MP[cid]


def _attack(st: MetaXBoard, p: int, action: Sequence[Any]) -> None:
    _, c, b = action
    s = _check_attacker(st, p, c)
    cid = _check_battle_card(st, p, s, b)
    st.pushed[p][s] = 1
    _play_battle_card(st, p, b, cid)
    st.attacks.append([c, b, -1, -1, -1, -1, -1, 0])
    if EFFECT[cid] is not None and EFFECT_KIND[cid] != ON_DEFENSE:
        st.start_effect(b, p, c)


def _team_attack(st: MetaXBoard, p: int, action: Sequence[Any]) -> None:
    _, lead, b, stat, *links = action
    s = _check_attacker(st, p, lead)
    cid = _check_battle_card(st, p, s, b)
    if stat not in BSTATS[cid]:
        raise illegal(
            "battle.team-stat",
            f"{NAME[cid]} has no {STAT_NAMES[stat] if 0 <= stat < 3 else stat} stat",
        )
    if len(set(links)) != len(links) or lead in links:
        raise illegal(
            "battle.team-links", "linking characters must be different from each other and the lead"
        )
    link_slots = []
    for x in links:
        link_slots.append(_check_attacker(st, p, x))
        if not st.stats(x)[stat]:
            raise illegal(
                "battle.team-link-stat", f"{st.name(x)} does not share the {STAT_NAMES[stat]} stat"
            )
    after = min(MAX_MP, st.mp[p] + MP[cid]) if MP[cid] > 0 else st.mp[p] + MP[cid]
    if after < LINK_COST * len(links):
        raise illegal(
            "battle.team-link-cost",
            f"linking {len(links)} character(s) costs {LINK_COST * len(links)} MP",
        )
    st.pushed[p][s] = 1
    _play_battle_card(st, p, b, cid)
    has_effect = EFFECT[cid] is not None and EFFECT_KIND[cid] != ON_DEFENSE
    if st.rev == 1:
        # ruleset 1 paid the links before the Battle Card's effect
        st.mp[p] -= LINK_COST * len(links)
        for ls in link_slots:
            st.pushed[p][ls] = 1
    st.attacks.append([lead, b, stat, links[0], links[1] if len(links) > 1 else -1, -1, -1, 0])
    if st.rev == 1:
        if has_effect:
            st.start_effect(b, p, lead)
        return
    # the rulebook's order: the card's effect, then 5 MP and a push per linking Character
    st.stack.append((P_LINK_COST, p))
    if has_effect:
        st.start_effect(b, p, lead)
    st.settle()


def _defend(st: MetaXBoard, p: int, action: Sequence[Any]) -> None:
    _, d, lead, b = action
    s = _own_character(st, p, d, "battle.not-your-character")
    if st.pushed[p][s]:
        raise illegal(
            "battle.defender-pushed", f"{st.name(d)} is pushed; only prepped characters defend"
        )
    attack = next((a for a in st.attacks if a[A_LEAD] == lead), None)
    if attack is None:
        raise illegal("battle.no-such-attack", "that card is not leading an attack")
    if attack[A_DEF] >= 0:
        raise illegal(
            "battle.one-defender-per-attack", f"{st.name(lead)}'s attack is already defended"
        )
    if any(a[A_DEF] == d for a in st.attacks):
        raise illegal("battle.defender-busy", f"{st.name(d)} is already defending")
    cid = _check_battle_card(st, p, s, b)
    _play_battle_card(st, p, b, cid)
    attack[A_DEF] = d
    attack[A_DCARD] = b
    if EFFECT[cid] is not None and EFFECT_KIND[cid] != ON_ATTACK:
        st.start_effect(b, p, d)


def _end_defense(st: MetaXBoard, p: int, action: Sequence[Any]) -> None:
    st.stack.pop()
    st.damage_step()


def _resolve(st: MetaXBoard, p: int, action: Sequence[Any]) -> None:
    _, lead = action
    attack = next(
        (a for a in st.attacks if a[A_LEAD] == lead and a[A_DEF] >= 0 and not a[A_DONE]), None
    )
    if attack is None:
        raise illegal("battle.no-such-battle", "that card leads no unresolved defended attack")
    st.stack.pop()
    st.resolve_battle(attack)
    if not st.over:
        st.damage_step()


def _choose(st: MetaXBoard, p: int, action: Sequence[Any]) -> None:
    _, iid = action
    frame, effect, step = st.pending_choice()
    if iid == -1:
        if not step.optional:
            raise illegal("choice.required", "this choice cannot be declined")
    elif iid < 0 or not step.accepts(st, frame, iid):
        raise illegal("choice.invalid", "that card is not one of the choices")
    stack = st.stack
    stack.pop()
    if resume_effect(st, effect, frame, iid) and not st.over:
        stack.pop()
        st.effect_done(frame)
    st.settle()


#: a handler: (state, the deciding player, the action `[kind, *args]`)
Handler = Callable[[MetaXBoard, int, Sequence[Any]], None]
_DISPATCH: dict[str, tuple[Handler | None, int, tuple[int, ...]]] = {
    "first_player": (_first_player, P_FIRST, (1,)),
    "keep": (_keep, P_MULLIGAN, (0,)),
    "mulligan": (_mulligan, P_MULLIGAN, (0,)),
    "bottom": (_bottom, P_ORDER, (1,)),
    "play_character": (_play_character, P_PLANNING, (1,)),
    "play_event": (_play_event, P_PLANNING, (1,)),
    "push_effect": (_push_effect, P_PLANNING, (1,)),
    "end_planning": (None, P_PLANNING, (0,)),
    "attack": (_attack, P_ATTACKS, (2,)),
    "team_attack": (_team_attack, P_ATTACKS, (4, 5)),
    "end_attacks": (None, P_ATTACKS, (0,)),
    "defend": (_defend, P_DEFENSE, (3,)),
    "end_defense": (_end_defense, P_DEFENSE, (0,)),
    "resolve": (_resolve, P_DAMAGE, (1,)),
    "choose": (_choose, P_CHOICE, (1,)),
}

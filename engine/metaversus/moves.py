"""The actions of a WISH match: which are legal now, and how each is checked and applied.

An answer to the prompt on top of the stack goes to `_answer`; with an empty stack the active
duelist plays a card, buys, wishes, casts a skill or ends the phase. `WishRules._apply_each` is
the one path of play and replay; every check comes before any change, so a rejected action
leaves the state unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from engine.core.actions import Action
from engine.metaversus.cards import ACTIVE, CARDS, TRIGGER_BUY
from engine.metaversus.effects import MODE_NAMES
from engine.metaversus.state import (
    ACTION,
    BUY,
    COMBAT,
    MAX_STARS,
    P_BAN,
    P_CHOOSE,
    P_GAIN,
    P_HAND,
    P_PICK,
    P_SKILL,
    PHASE_NAMES,
    WISH,
    WishBoard,
    illegal,
)

_KIND = CARDS.kind
_AP = CARDS.ap
_STARS = CARDS.stars
_REQUIRED = CARDS.required
_EFFECTS = CARDS.effects
_VALUE = CARDS.value
_DAMAGE = CARDS.damage
_TRIGGER = CARDS.skill_trigger

# Prebuilt actions (legal_actions is on the hot path of every bot and benchmark).
A_WISH = Action("wish")
A_NEXT = Action("next")
A_SKILL = Action("skill")
A_DECLINE = Action("decline")
A_NOBAN = Action("noban")
_PLAY = [(Action("play", (c, 0)), Action("play", (c, 1))) for c in range(CARDS.n)]
_SELECT = [Action("select", (c,)) for c in range(CARDS.n)]
_BUY = [Action("buy", (s,)) for s in range(64)]
_GAIN = [Action("gain", (s,)) for s in range(64)]
_PHASE_OF_KIND = (BUY, COMBAT, ACTION)
_KIND_WORD = ("currency", "weapon", "action")


class WishRules(WishBoard):
    """A WISH match with its actions: `legal_actions` and `_apply_each` (check, then apply)."""

    __slots__ = ()

    def legal_actions(self) -> list[Action]:
        """Every legal action, in a deterministic order."""
        if self.over:
            return []
        if self.stack:
            return self._prompt_actions(self.stack[-1])
        p = self.active
        ph = self.phase
        out: list[Action]
        if ph == WISH:
            out = [A_WISH]
        elif ph == ACTION:
            out = []
            ap = self.ap
            stars = self.stars[p]
            for c in sorted(set(self.hand[p])):
                if _KIND[c] == 2:
                    if _AP[2 * c] <= ap:
                        out.append(_PLAY[c][0])
                    if stars and _STARS[c] and stars >= _STARS[c] and _AP[2 * c + 1] <= ap:
                        out.append(_PLAY[c][1])
        elif ph == BUY:
            out = []
            if not self.bought:
                self._playable(p, 0, out)
            if self.buys:
                gems = self.gems
                stock = self.m_stock
                for s in range(len(stock)):
                    if stock[s] and self.price(s) <= gems:
                        out.append(_BUY[s])
        else:  # COMBAT
            out = []
            self._playable(p, 1, out)
        if self._skill_problem(p) is None:
            out.append(A_SKILL)
        out.append(A_NEXT)
        return out

    def _playable(self, p: int, kind: int, out: list[Action]) -> None:
        """Append the plays of p's hand cards of `kind` (0 currency, 1 weapon) that need
        no AP: each card's plain state, and its "+" state when p has the stars for it."""
        stars = self.stars[p]
        for c in sorted(set(self.hand[p])):
            if _KIND[c] == kind:
                out.append(_PLAY[c][0])
                if stars and _STARS[c] and stars >= _STARS[c]:
                    out.append(_PLAY[c][1])

    def _prompt_actions(self, top: list[int]) -> list[Action]:
        kind, p = top[0], top[1]
        if kind == P_HAND:
            out = [_SELECT[c] for c in sorted(set(self.hand[p]))]
            if top[3]:
                out.append(A_DECLINE)
            return out
        if kind == P_GAIN:
            return [_GAIN[s] for s in range(len(self.m_card)) if self._gain_ok(s, top[2])]
        if kind == P_SKILL:
            return [A_SKILL, A_DECLINE]
        if kind == P_BAN:
            hand = self.sel[p]
            out = [Action("ban", (k,)) for k in sorted(set(hand)) if any(x != k for x in hand)]
            out.append(A_NOBAN)
            return out
        if kind == P_CHOOSE:
            return [Action("choose", (k,)) for k in sorted(set(self.sel[p]))]
        # P_PICK
        taken = self.picks[p]
        return [Action("pick", (c,)) for c in CARDS.pack_market[self.char[p]] if c not in taken]

    def _apply_each(self, actions: Iterable[Sequence[Any]]) -> None:
        """Apply each action in order; IllegalAction names the rule it breaks (the state is
        unchanged). An answer to the prompt on top goes to `_answer`."""
        for raw in actions:
            if self.over:
                raise illegal("match.over", "the match is over")
            kind = raw[0]
            if self.stack:
                self._answer(self.stack[-1], kind, raw[1:])
                continue
            if kind == "next":
                ph = self.phase
                if ph == WISH:
                    self.phase = ACTION
                    self.ap += 1
                elif ph == ACTION:
                    self.phase = BUY
                elif ph == BUY:
                    self.phase = COMBAT
                else:
                    if self.pool:
                        self.lose_hp(1 - self.active, self.pool)
                    self._end_turn()
                continue
            p = self.active
            if kind == "play":
                if len(raw) != 3 or raw[2] not in (0, 1):
                    raise illegal("action.malformed", "play takes (card, plus 0/1)")
                self._play(p, raw[1], raw[2])
            elif kind == "wish":
                if self.phase != WISH:
                    raise illegal("wish.phase", "a Wishing Star is taken only in the Wish Phase")
                self.stars[p] = min(MAX_STARS, self.stars[p] + 1)
                self._end_turn()
            elif kind == "buy":
                if len(raw) != 2:
                    raise illegal("action.malformed", "buy takes (slot)")
                self._buy(p, raw[1])
            elif kind == "skill":
                problem = self._skill_problem(p)
                if problem is not None:
                    raise illegal(problem[0], problem[1])
                self.skill_turn = 1
                self._cast_skill(p)
            else:
                raise illegal(
                    "action.unknown",
                    f"{kind!r} is not an action of the {PHASE_NAMES[self.phase]} phase",
                )

    def _answer(self, top: list[int], kind: str, args: Sequence[int]) -> None:
        """Check and apply an answer to the prompt on top of the stack."""
        pk, p = top[0], top[1]
        arg = args[0] if len(args) == 1 else -1
        if pk == P_HAND:
            if kind == "decline" and not args:
                if not top[3]:
                    raise illegal("effect.must-choose", "this instruction must be followed")
                self._resume(-1)
            elif kind == "select" and len(args) == 1:
                if arg not in self.hand[p]:
                    raise illegal("effect.not-in-hand", "choose a card from your hand")
                self._resume(arg)
            else:
                raise illegal(
                    "prompt.pending", f"answer the {MODE_NAMES[top[2]]} prompt with select/decline"
                )
        elif pk == P_GAIN:
            if kind != "gain" or len(args) != 1:
                raise illegal("prompt.pending", "answer the gain prompt with gain(slot)")
            if not self._gain_ok(arg, top[2]):
                raise illegal(
                    "effect.gain-cost", f"gain a Market card in stock costing at most {top[2]}"
                )
            self._resume(arg)
        elif pk == P_SKILL:
            if args or kind not in ("skill", "decline"):
                raise illegal("prompt.pending", "answer with skill (cast it) or decline")
            self.stack.pop()
            if kind == "skill":
                self._cast_skill(p)
        elif pk == P_BAN:
            hand = self.sel[p]
            if kind == "noban" and not args:
                self.bans[p] = -1
            elif kind == "ban" and len(args) == 1:
                if arg not in hand:
                    raise illegal("select.not-in-hand", "ban a character card from your hand")
                if all(x == arg for x in hand):
                    raise illegal("select.ban-empties-hand", "you must keep a character to pass")
                self.bans[p] = arg
            else:
                raise illegal("prompt.pending", "answer with ban(pack) or noban")
            self.stack.pop()
            if not self.stack:
                self._after_bans()
        elif pk == P_CHOOSE:
            if kind != "choose" or len(args) != 1:
                raise illegal("prompt.pending", "answer with choose(pack)")
            if arg not in self.sel[p]:
                raise illegal("select.not-in-hand", "choose a character card from your hand")
            self.chosen[p] = arg
            self.stack.pop()
            if not self.stack:
                self._after_choices()
        else:  # P_PICK
            if kind != "pick" or len(args) != 1:
                raise illegal("prompt.pending", "answer with pick(card)")
            if arg not in CARDS.pack_market[self.char[p]]:
                raise illegal("market.not-in-pack", "pick a market card type of your own pack")
            if arg in self.picks[p]:
                raise illegal("market.picked-twice", "each market card type is picked once")
            self.picks[p].append(arg)
            self.stack.pop()
            if top[2] > 1:
                self.stack.append([P_PICK, p, top[2] - 1])
            elif not self.stack:
                self._finish_setup()

    def _skill_problem(self, p: int) -> tuple[str, str] | None:
        """Why p may not cast their character's active skill now (rule, message), or None."""
        pack = self.char[p]
        if CARDS.skill_kind[pack] != ACTIVE:
            return ("skill.passive", "this character's skill is passive: it is cast by its trigger")
        if self.uses[p] == 0:
            return ("skill.no-uses", "the skill has no uses left")
        if CARDS.skill_per_turn[pack] and self.skill_turn:
            return ("skill.once-per-turn", "the skill was already cast this turn")
        ph = CARDS.skill_phase[pack]
        if ph != "any" and PHASE_NAMES[self.phase] != ph:
            return ("skill.phase", f"the skill is cast only in the {ph} phase")
        return None

    def _play(self, p: int, card: int, plus: int) -> None:
        """Play a card of p's hand (in its "+" state if `plus`): check, pay, then cast it."""
        hand = self.hand[p]
        if card not in hand:
            raise illegal("play.not-in-hand", "play a card from your hand")
        k = _KIND[card]
        if self.phase != _PHASE_OF_KIND[k]:
            raise illegal(
                f"{_KIND_WORD[k]}.phase",
                f"{_KIND_WORD[k]} cards are played in the {PHASE_NAMES[_PHASE_OF_KIND[k]]} phase",
            )
        v = 2 * card + plus
        if plus:
            if _REQUIRED[card]:
                raise illegal(
                    "star.required-card", "required market cards cannot use Wishing Stars"
                )
            if self.stars[p] < _STARS[card]:
                raise illegal(
                    "star.not-enough", f"the + state needs {_STARS[card]} Wishing Star(s)"
                )
        if k == 2:
            if _AP[v] > self.ap:
                raise illegal("action.no-ap", f"the card costs {_AP[v]} AP, you have {self.ap}")
            self.ap -= _AP[v]
        elif k == 0:
            if self.bought:
                raise illegal("buy.currency-after-buy", "no Currency Cards after the first buy")
            self.gems += _VALUE[v]
        else:
            self.wplayed += 1
            self.pool += _DAMAGE[v] + self.wbonus
        if plus:
            self.stars[p] -= _STARS[card]
        hand.remove(card)
        self.play[p].append(card)
        self.played += 1
        if _EFFECTS[v].steps:
            self._run(v, card, p)

    def _buy(self, p: int, slot: int) -> None:
        """Buy the card of a Market slot: check, pay, gain it, then any buy trigger."""
        if self.phase != BUY:
            raise illegal("buy.phase", "cards are bought in the Buy Phase")
        if not 0 <= slot < len(self.m_card):
            raise illegal("buy.no-slot", f"there is no Market slot {slot}")
        if not self.m_stock[slot]:
            raise illegal("buy.sold-out", "that Market card is sold out")
        if self.buys < 1:
            raise illegal("buy.no-buys", "no buys left this turn")
        cost = self.price(slot)
        if cost > self.gems:
            raise illegal("buy.over-gems", f"the card costs {cost} Gems, you have {self.gems}")
        self.gems -= cost
        self.buys -= 1
        self.bought = 1
        self.take_from_market(p, slot, 0)
        if _TRIGGER[self.char[p]] == TRIGGER_BUY:
            self._trigger(p, TRIGGER_BUY)

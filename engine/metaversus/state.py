"""The MetaVersus WISH match state and its rules: setup choices, the turn, the Market, the end.

Cards and packs are catalogue numbers (see `cards.py`). Zones are lists of ints; a draw deck's
top card is the end of its list. Every pending decision is an entry on `stack`: a prompt list
`[kind, player, *args]` (see `constants.py`) or a running effect (`EffectFrame`) waiting under
the prompt one of its steps pushed. With an empty stack the active duelist acts in the current
phase (Wish, Action, Buy, Combat; the Discard Phase runs by itself at the end of a turn).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Self

from engine.core.actions import Action
from engine.core.effects import EffectFrame, FunctionStep, resume_effect, run_effect
from engine.core.errors import IllegalAction, ReplayRejected
from engine.core.prng import Prng
from engine.core.state import TERMINAL, GameState, pack_ints, pack_prng
from engine.metaversus import cards as C
from engine.metaversus.constants import (
    ACTION,
    BUY,
    COMBAT,
    HAND_SIZE,
    MAX_STARS,
    MODE_NAMES,
    OVER,
    P_BAN,
    P_CHOOSE,
    P_GAIN,
    P_HAND,
    P_PICK,
    P_SKILL,
    PHASE_NAMES,
    PROMPT_NAMES,
    SETUP,
    SOURCE_NAMES,
    SRC_NEUTRAL,
    SRC_P1,
    SRC_REQUIRED,
    TO_DECK,
    TO_DISCARD,
    TO_HAND,
    WISH,
)
from engine.metaversus.effects import SUSPENDING_OPS

_KIND = C.KIND
_AP = C.AP
_STARS = C.STARS
_REQUIRED = C.REQUIRED
_COST = C.COST
_PRICIER = C.PRICIER
_EFFECTS = C.EFFECTS
_SKILL_BASE = 2 * C.N
_TRIGGER = C.SKILL_TRIGGER
#: effects with a step that may push a prompt (they run on the stack)
_SUSPENDS = [any(op in SUSPENDING_OPS for op in e.ops) for e in _EFFECTS]
# zones hold card (and pack) numbers; `hash_bytes` writes each as one byte
assert C.N <= 256
#: effects made only of plain function steps: their functions, called in order (no frame
#: bookkeeping needed: such a step never suspends, stops the effect or reads `frame.step`)
_PLAIN = [
    tuple(st.fn for st in e.steps if isinstance(st, FunctionStep))
    if all(type(st) is FunctionStep for st in e.steps)
    else None
    for e in _EFFECTS
]

# Prebuilt actions (legal_actions is on the hot path of every bot and benchmark).
A_WISH = Action("wish")
A_NEXT = Action("next")
A_SKILL = Action("skill")
A_DECLINE = Action("decline")
A_NOBAN = Action("noban")
_PLAY = [(Action("play", (c, 0)), Action("play", (c, 1))) for c in range(C.N)]
_SELECT = [Action("select", (c,)) for c in range(C.N)]
_BUY = [Action("buy", (s,)) for s in range(64)]
_GAIN = [Action("gain", (s,)) for s in range(64)]
_PHASE_OF_KIND = (BUY, COMBAT, ACTION)
_KIND_WORD = ("currency", "weapon", "action")


def _hex(cards: list[int]) -> str:
    """A zone as a hex string, one byte per card number (compact and fast to hash)."""
    return bytes(cards).hex()


def _unhex(text: str) -> list[int]:
    return list(bytes.fromhex(text))


def _illegal(rule: str, message: str) -> IllegalAction:
    return IllegalAction("metaversus." + rule, message)


class WishState(GameState):
    """A MetaVersus WISH match in progress (players 0 = P1 and 1 = P2)."""

    game: ClassVar[str] = "metaversus"

    __slots__ = (
        "active",
        "ap",
        "bans",
        "bought",
        "buys",
        "char",
        "chosen",
        "deck",
        "disc",
        "discount",
        "first",
        "gems",
        "hand",
        "hp",
        "m_card",
        "m_src",
        "m_stock",
        "max_rounds",
        "maxhp",
        "neutral",
        "over",
        "phase",
        "picks",
        "pile",
        "play",
        "played",
        "pool",
        "removed",
        "rng",
        "sel",
        "skill_turn",
        "stack",
        "stars",
        "turn",
        "uses",
        "wbonus",
        "win",
        "wplayed",
        "zero",
    )

    rng: Prng
    stack: list[Any]
    phase: int
    active: int
    first: int
    turn: int
    max_rounds: int
    ap: int
    gems: int
    buys: int
    bought: int
    pool: int
    wbonus: int
    discount: int
    played: int
    wplayed: int
    skill_turn: int
    hp: list[int]
    maxhp: list[int]
    stars: list[int]
    uses: list[int]
    char: list[int]
    hand: list[list[int]]
    deck: list[list[int]]
    disc: list[list[int]]
    play: list[list[int]]
    removed: list[list[int]]
    pile: list[list[int]]
    neutral: list[int]
    m_card: list[int]
    m_stock: list[int]
    m_src: list[int]
    zero: bool
    over: bool
    win: int
    sel: list[list[int]]
    bans: list[int]
    chosen: list[int]
    picks: list[list[int]]

    def __init__(self, seed: int = 0) -> None:
        self.rng = Prng(seed)
        self.phase = SETUP
        self.active = 0
        self.first = 0
        self.turn = 0
        self.max_rounds = 50
        self.ap = self.gems = self.buys = self.bought = 0
        self.pool = self.wbonus = self.discount = self.played = self.wplayed = 0
        self.skill_turn = 0
        self.hp = [0, 0]
        self.maxhp = [0, 0]
        self.stars = [0, 0]
        self.uses = [-1, -1]
        self.char = [-1, -1]
        self.hand = [[], []]
        self.deck = [[], []]
        self.disc = [[], []]
        self.play = [[], []]
        self.removed = [[], []]
        self.pile = [[], []]
        self.neutral = []
        self.m_card = []
        self.m_stock = []
        self.m_src = []
        self.stack = []
        self.zero = False
        self.over = False
        self.win = -1
        self.sel = [[], []]
        self.bans = [-2, -2]
        self.chosen = [-1, -1]
        self.picks = [[], []]

    # ------------------------------------------------------------------ interface

    @property
    def current_player(self) -> int:
        """The player to act: the owner of the top prompt, else the active duelist."""
        if self.over:
            return TERMINAL
        st = self.stack
        if st:
            top = st[-1]
            return int(top[1])
        return self.active

    @property
    def is_over(self) -> bool:
        """Whether the match has ended."""
        return self.over

    @property
    def winner(self) -> int | None:
        """The winner once over (the game has no draws)."""
        return self.win if self.over else None

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
                stars = self.stars[p]
                for c in sorted(set(self.hand[p])):
                    if _KIND[c] == 0:
                        out.append(_PLAY[c][0])
                        if stars and _STARS[c] and stars >= _STARS[c]:
                            out.append(_PLAY[c][1])
            if self.buys:
                gems = self.gems
                stock = self.m_stock
                for s in range(len(stock)):
                    if stock[s] and self.price(s) <= gems:
                        out.append(_BUY[s])
        else:  # COMBAT
            out = []
            stars = self.stars[p]
            for c in sorted(set(self.hand[p])):
                if _KIND[c] == 1:
                    out.append(_PLAY[c][0])
                    if stars and _STARS[c] and stars >= _STARS[c]:
                        out.append(_PLAY[c][1])
        if self._skill_problem(p) is None:
            out.append(A_SKILL)
        out.append(A_NEXT)
        return out

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
        return [Action("pick", (c,)) for c in C.PACK_MARKET[self.char[p]] if c not in taken]

    def apply(self, action: Action) -> None:
        """Apply one action; IllegalAction names the rule it breaks (the state is unchanged)."""
        if self.over:
            raise _illegal("match.over", "the match is over")
        kind = action.kind
        args = action.args
        if self.stack:
            self._answer(self.stack[-1], kind, args)
            return
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
            return
        p = self.active
        if kind == "play":
            if len(args) != 2 or args[1] not in (0, 1):
                raise _illegal("action.malformed", "play takes (card, plus 0/1)")
            self._play(p, args[0], args[1])
        elif kind == "wish":
            if self.phase != WISH:
                raise _illegal("wish.phase", "a Wishing Star is taken only in the Wish Phase")
            self.stars[p] = min(MAX_STARS, self.stars[p] + 1)
            self._end_turn()
        elif kind == "buy":
            if len(args) != 1:
                raise _illegal("action.malformed", "buy takes (slot)")
            self._buy(p, args[0])
        elif kind == "skill":
            problem = self._skill_problem(p)
            if problem is not None:
                raise _illegal(problem[0], problem[1])
            self.skill_turn = 1
            self._cast_skill(p)
        else:
            raise _illegal(
                "action.unknown",
                f"{kind!r} is not an action of the {PHASE_NAMES[self.phase]} phase",
            )

    def apply_actions(self, actions: Sequence[Sequence[Any]], start: int, stop: int) -> None:
        """Replay's loop: `apply` for each of `actions[start:stop]` (transcript form).

        The same checks in the same order as `apply` (a test holds them equal), without
        building an `Action` per step: an answer to a prompt goes to `_answer`, and "next",
        "play", "wish" and "buy" (over 90% of a match) run inline; anything else goes through
        `apply`. ReplayRejected names the index of an illegal action.
        """
        apply = self.apply
        new_action = tuple.__new__
        for i, raw in enumerate(actions[start:stop], start):
            try:
                if self.over:
                    raise _illegal("match.over", "the match is over")
                if self.stack:
                    self._answer(self.stack[-1], raw[0], tuple(raw[1:]))
                    continue
                kind = raw[0]
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
                elif kind == "play":
                    if len(raw) != 3 or raw[2] not in (0, 1):
                        raise _illegal("action.malformed", "play takes (card, plus 0/1)")
                    self._play(self.active, raw[1], raw[2])
                elif kind == "wish":
                    if self.phase != WISH:
                        raise _illegal(
                            "wish.phase", "a Wishing Star is taken only in the Wish Phase"
                        )
                    p = self.active
                    self.stars[p] = min(MAX_STARS, self.stars[p] + 1)
                    self._end_turn()
                elif kind == "buy":
                    if len(raw) != 2:
                        raise _illegal("action.malformed", "buy takes (slot)")
                    self._buy(self.active, raw[1])
                else:
                    apply(new_action(Action, (kind, tuple(raw[1:]))))
            except IllegalAction as exc:
                raise ReplayRejected(i, exc.rule, f"{list(raw)!r}: {exc.message}") from exc

    def label(self, action: Action) -> str:
        """A readable description of an action."""
        k, a = action.kind, action.args
        if k == "play" and len(a) == 2 and 0 <= a[0] < C.N:
            return f"play {C.NAMES[a[0]]}{'+' if a[1] else ''}"
        if k in ("buy", "gain") and a and 0 <= a[0] < len(self.m_card) and self.m_card[a[0]] >= 0:
            return f"{k} {C.NAMES[self.m_card[a[0]]]} (slot {a[0]}, {self.price(a[0])} Gems)"
        if k in ("select", "ban", "choose", "pick") and a and 0 <= a[0] < C.N:
            return f"{k} {C.NAMES[a[0]]}"
        if k == "next":
            return f"end the {PHASE_NAMES[self.phase]} phase"
        if k == "wish":
            return "take a Wishing Star (skip to the Discard Phase)"
        if k == "skill":
            return "cast the character's skill"
        return " ".join([k, *map(str, a)])

    # ------------------------------------------------------------------ setup answers

    def _answer(self, top: list[int], kind: str, args: tuple[int, ...]) -> None:
        pk, p = top[0], top[1]
        arg = args[0] if len(args) == 1 else -1
        if pk == P_HAND:
            if kind == "decline" and not args:
                if not top[3]:
                    raise _illegal("effect.must-choose", "this instruction must be followed")
                self._resume(-1)
            elif kind == "select" and len(args) == 1:
                if arg not in self.hand[p]:
                    raise _illegal("effect.not-in-hand", "choose a card from your hand")
                self._resume(arg)
            else:
                raise _illegal(
                    "prompt.pending", f"answer the {MODE_NAMES[top[2]]} prompt with select/decline"
                )
        elif pk == P_GAIN:
            if kind != "gain" or len(args) != 1:
                raise _illegal("prompt.pending", "answer the gain prompt with gain(slot)")
            if not self._gain_ok(arg, top[2]):
                raise _illegal(
                    "effect.gain-cost", f"gain a Market card in stock costing at most {top[2]}"
                )
            self._resume(arg)
        elif pk == P_SKILL:
            if args or kind not in ("skill", "decline"):
                raise _illegal("prompt.pending", "answer with skill (cast it) or decline")
            self.stack.pop()
            if kind == "skill":
                self._cast_skill(p)
        elif pk == P_BAN:
            hand = self.sel[p]
            if kind == "noban" and not args:
                self.bans[p] = -1
            elif kind == "ban" and len(args) == 1:
                if arg not in hand:
                    raise _illegal("select.not-in-hand", "ban a character card from your hand")
                if all(x == arg for x in hand):
                    raise _illegal("select.ban-empties-hand", "you must keep a character to pass")
                self.bans[p] = arg
            else:
                raise _illegal("prompt.pending", "answer with ban(pack) or noban")
            self.stack.pop()
            if not self.stack:
                self._after_bans()
        elif pk == P_CHOOSE:
            if kind != "choose" or len(args) != 1:
                raise _illegal("prompt.pending", "answer with choose(pack)")
            if arg not in self.sel[p]:
                raise _illegal("select.not-in-hand", "choose a character card from your hand")
            self.chosen[p] = arg
            self.stack.pop()
            if not self.stack:
                self._after_choices()
        else:  # P_PICK
            if kind != "pick" or len(args) != 1:
                raise _illegal("prompt.pending", "answer with pick(card)")
            if arg not in C.PACK_MARKET[self.char[p]]:
                raise _illegal("market.not-in-pack", "pick a market card type of your own pack")
            if arg in self.picks[p]:
                raise _illegal("market.picked-twice", "each market card type is picked once")
            self.picks[p].append(arg)
            self.stack.pop()
            if top[2] > 1:
                self.stack.append([P_PICK, p, top[2] - 1])
            elif not self.stack:
                self._finish_setup()

    def _after_bans(self) -> None:
        for p in (0, 1):
            b = self.bans[p]
            if b >= 0:
                self.sel[p] = [k for k in self.sel[p] if k != b]
        self.sel = [self.sel[1], self.sel[0]]
        self.stack = [[P_CHOOSE, 1], [P_CHOOSE, 0]]

    def _after_choices(self) -> None:
        self.sel = [[], []]
        self.start_picks(self.chosen[0], self.chosen[1])

    def start_picks(self, pack0: int, pack1: int) -> None:
        """Both characters are known: each duelist picks 4 market card types of their pack."""
        self.char = [pack0, pack1]
        self.stack = [[P_PICK, 1, C.MARKET_PICKS], [P_PICK, 0, C.MARKET_PICKS]]

    def _finish_setup(self) -> None:
        rng = self.rng
        for p in (0, 1):
            pack = self.char[p]
            for c in self.picks[p]:
                self.m_card.append(c)
                self.m_stock.append(C.STOCK_COPIES)
                self.m_src.append(SRC_P1 + p)
            rest = [c for c in C.PACK_MARKET[pack] if c not in self.picks[p]]
            rng.shuffle(rest)
            self.pile[p] = rest
            self.hp[p] = C.HP[pack]
            self.maxhp[p] = C.MAX_HP[pack]
            self.uses[p] = C.SKILL_USES[pack]
        self.picks = [[], []]
        if self.first < 0:  # no first-match rule: roll the First Player Die
            self.first = rng.below(2)
        for p in (0, 1):
            deck = list(C.BASIC_DECK)
            rng.shuffle(deck)
            self.deck[p] = deck
            self.draw(p, HAND_SIZE)
        self.active = self.first
        self._start_turn()

    # ------------------------------------------------------------------ the turn

    def _start_turn(self) -> None:
        self.turn += 1
        self.phase = WISH
        self.ap = self.gems = self.bought = 0
        self.buys = 1
        self.pool = self.wbonus = self.discount = self.played = self.wplayed = 0
        self.skill_turn = 0
        if _TRIGGER[self.char[self.active]] == C.TRIGGER_TURN_START:
            self._trigger(self.active, C.TRIGGER_TURN_START)

    def _trigger(self, p: int, trigger: int) -> None:
        pack = self.char[p]
        if C.SKILL_TRIGGER[pack] != trigger or self.uses[p] == 0:
            return
        if C.SKILL_MAY[pack]:
            self.stack.append([P_SKILL, p])
        else:
            self._cast_skill(p)

    def _cast_skill(self, p: int) -> None:
        if self.uses[p] > 0:
            self.uses[p] -= 1
        pack = self.char[p]
        self._run(_SKILL_BASE + pack, pack, p)

    def _skill_problem(self, p: int) -> tuple[str, str] | None:
        pack = self.char[p]
        if C.SKILL_KIND[pack] != C.ACTIVE:
            return ("skill.passive", "this character's skill is passive: it is cast by its trigger")
        if self.uses[p] == 0:
            return ("skill.no-uses", "the skill has no uses left")
        if C.SKILL_PER_TURN[pack] and self.skill_turn:
            return ("skill.once-per-turn", "the skill was already cast this turn")
        ph = C.SKILL_PHASE[pack]
        if ph != "any" and PHASE_NAMES[self.phase] != ph:
            return ("skill.phase", f"the skill is cast only in the {ph} phase")
        return None

    def _run(self, effect: int, source: int, controller: int) -> None:
        plain = _PLAIN[effect]
        if plain is not None:  # run_effect, unrolled (an empty effect does nothing)
            if plain:
                frame = EffectFrame(effect, source, controller)
                for fn in plain:
                    fn(self, frame)
                if self.over:
                    self.stack.clear()
            return
        eff = _EFFECTS[effect]
        if not eff.steps:
            return
        frame = EffectFrame(effect, source, controller)
        if not _SUSPENDS[effect]:  # no step can ask for a choice: no need to stack the frame
            run_effect(self, eff, frame)
            if self.over:
                self.stack.clear()
            return
        st = self.stack
        st.append(frame)
        done = run_effect(self, eff, frame)
        if self.over:
            st.clear()
        elif done:
            st.pop()

    def _resume(self, choice: int) -> None:
        st = self.stack
        st.pop()
        frame = st[-1]
        done = resume_effect(self, _EFFECTS[frame.effect], frame, choice)
        if self.over:
            st.clear()
        elif done:
            st.pop()

    def _play(self, p: int, card: int, plus: int) -> None:
        hand = self.hand[p]
        if card not in hand:
            raise _illegal("play.not-in-hand", "play a card from your hand")
        k = _KIND[card]
        if self.phase != _PHASE_OF_KIND[k]:
            raise _illegal(
                f"{_KIND_WORD[k]}.phase",
                f"{_KIND_WORD[k]} cards are played in the {PHASE_NAMES[_PHASE_OF_KIND[k]]} phase",
            )
        v = 2 * card + plus
        if plus:
            if _REQUIRED[card]:
                raise _illegal(
                    "star.required-card", "required market cards cannot use Wishing Stars"
                )
            if self.stars[p] < _STARS[card]:
                raise _illegal(
                    "star.not-enough", f"the + state needs {_STARS[card]} Wishing Star(s)"
                )
        if k == 2:
            if _AP[v] > self.ap:
                raise _illegal("action.no-ap", f"the card costs {_AP[v]} AP, you have {self.ap}")
            self.ap -= _AP[v]
        elif k == 0:
            if self.bought:
                raise _illegal("buy.currency-after-buy", "no Currency Cards after the first buy")
            self.gems += C.VALUE[v]
        else:
            self.wplayed += 1
            self.pool += C.DAMAGE[v] + self.wbonus
        if plus:
            self.stars[p] -= _STARS[card]
        hand.remove(card)
        self.play[p].append(card)
        self.played += 1
        if _EFFECTS[v].steps:
            self._run(v, card, p)

    def price(self, slot: int) -> int:
        """What buying from a Market slot costs now (the last copies of a weapon cost 1 more)."""
        c = self.m_card[slot]
        cost = _COST[c]
        if _PRICIER[c] and self.m_stock[slot] <= _PRICIER[c]:
            cost += 1
        return max(0, cost - self.discount)

    def list_price(self, slot: int) -> int:
        """A slot's cost without this turn's discounts."""
        c = self.m_card[slot]
        return _COST[c] + (1 if _PRICIER[c] and self.m_stock[slot] <= _PRICIER[c] else 0)

    def _buy(self, p: int, slot: int) -> None:
        if self.phase != BUY:
            raise _illegal("buy.phase", "cards are bought in the Buy Phase")
        if not 0 <= slot < len(self.m_card):
            raise _illegal("buy.no-slot", f"there is no Market slot {slot}")
        if not self.m_stock[slot]:
            raise _illegal("buy.sold-out", "that Market card is sold out")
        if self.buys < 1:
            raise _illegal("buy.no-buys", "no buys left this turn")
        cost = self.price(slot)
        if cost > self.gems:
            raise _illegal("buy.over-gems", f"the card costs {cost} Gems, you have {self.gems}")
        self.gems -= cost
        self.buys -= 1
        self.bought = 1
        self.take_from_market(p, slot, 0)
        if _TRIGGER[self.char[p]] == C.TRIGGER_BUY:
            self._trigger(p, C.TRIGGER_BUY)

    def _end_turn(self) -> None:
        """The Discard Phase, the end-of-match check, then the opponent's turn."""
        p = self.active
        hand = self.hand
        play = self.play
        disc = self.disc[p]
        disc += play[p]
        disc += hand[p]
        play[p] = []
        deck = self.deck[p]
        k = len(deck)
        if k > HAND_SIZE:  # the common case of draw(p, 5), inlined: the top 5, top first
            hand[p] = deck[: k - HAND_SIZE - 1 : -1]
            del deck[k - HAND_SIZE :]
        else:  # draw(p, 5) from an empty hand, inlined: the rest of the deck, then reshuffle
            drawn = deck[::-1]
            deck.clear()
            n = HAND_SIZE - k
            if n and disc:
                self.rng.shuffle(disc)
                self.deck[p] = disc
                self.disc[p] = []
                m = len(disc)
                if m < n:
                    n = m
                drawn += disc[m - n :][::-1]
                del disc[m - n :]
            hand[p] = drawn
        if p != self.first and (self.zero or self.turn >= 2 * self.max_rounds):
            self.ap = self.gems = self.buys = 0
            f = self.first
            self.end_match(f if self.hp[f] >= self.hp[1 - f] else 1 - f)
            return
        self.active = p = 1 - p
        self.turn += 1
        self.phase = WISH
        self.ap = self.gems = self.bought = self.pool = self.wbonus = 0
        self.discount = self.played = self.wplayed = self.skill_turn = 0
        self.buys = 1
        pack = self.char[p]
        if _TRIGGER[pack] == C.TRIGGER_TURN_START and self.uses[p] != 0:  # _trigger, inlined
            if C.SKILL_MAY[pack]:
                self.stack.append([P_SKILL, p])
            else:  # _cast_skill, inlined
                if self.uses[p] > 0:
                    self.uses[p] -= 1
                self._run(_SKILL_BASE + pack, pack, p)

    # ------------------------------------------------------------------ helpers for effects

    def draw(self, p: int, n: int) -> None:
        """Draw n cards; an empty draw deck is remade from the shuffled discard pile."""
        deck = self.deck[p]
        k = len(deck)
        hand = self.hand[p]
        if k < n:
            if k:
                hand += deck[::-1]
                deck.clear()
                n -= k
            disc = self.disc[p]
            if not disc:
                return
            self.rng.shuffle(disc)
            self.deck[p] = deck = disc
            self.disc[p] = []
            k = len(deck)
            if k < n:
                n = k
        hand += deck[k - n :][::-1]
        del deck[k - n :]

    def lose_hp(self, p: int, n: int) -> None:
        """Reduce a duelist's HP (it may go below 0)."""
        hp = self.hp[p] - n
        self.hp[p] = hp
        if hp <= 0:
            self.zero = True

    def end_match(self, winner: int) -> None:
        """End the match now with a winner."""
        self.over = True
        self.win = winner
        self.phase = OVER

    def slot_of(self, card: int) -> int:
        """The Market slot selling `card` with stock left, or -1."""
        for s, c in enumerate(self.m_card):
            if c == card and self.m_stock[s]:
                return s
        return -1

    def _gain_ok(self, slot: int, max_cost: int) -> bool:
        return (
            0 <= slot < len(self.m_card)
            and self.m_stock[slot] > 0
            and self.list_price(slot) <= max_cost
        )

    def gainable(self, max_cost: int) -> bool:
        """Whether some Market card in stock costs at most max_cost."""
        return any(self._gain_ok(s, max_cost) for s in range(len(self.m_card)))

    def take_from_market(self, p: int, slot: int, dest: int) -> None:
        """Gain the card of a Market slot; a sold-out slot is restocked from its pile."""
        c = self.m_card[slot]
        self.m_stock[slot] -= 1
        if dest == TO_HAND:
            self.hand[p].append(c)
        elif dest == TO_DISCARD:
            self.disc[p].append(c)
        elif dest == TO_DECK:
            self.deck[p].append(c)
        else:
            self.play[p].append(c)
        if self.m_stock[slot] == 0:
            src = self.m_src[slot]
            if src == SRC_REQUIRED:
                return
            pile = self.neutral if src == SRC_NEUTRAL else self.pile[src - SRC_P1]
            if pile:
                self.m_card[slot] = pile.pop()
                self.m_stock[slot] = C.STOCK_COPIES
            else:
                self.m_card[slot] = -1

    # ------------------------------------------------------------------ copy and serialise

    def clone(self) -> Self:
        """An independent copy (lists copied, no deepcopy)."""
        s = self.__class__.__new__(self.__class__)
        s.rng = self.rng.clone()
        s.phase = self.phase
        s.active = self.active
        s.first = self.first
        s.turn = self.turn
        s.max_rounds = self.max_rounds
        s.ap = self.ap
        s.gems = self.gems
        s.buys = self.buys
        s.bought = self.bought
        s.pool = self.pool
        s.wbonus = self.wbonus
        s.discount = self.discount
        s.played = self.played
        s.wplayed = self.wplayed
        s.skill_turn = self.skill_turn
        s.hp = self.hp[:]
        s.maxhp = self.maxhp[:]
        s.stars = self.stars[:]
        s.uses = self.uses[:]
        s.char = self.char[:]
        s.hand = [self.hand[0][:], self.hand[1][:]]
        s.deck = [self.deck[0][:], self.deck[1][:]]
        s.disc = [self.disc[0][:], self.disc[1][:]]
        s.play = [self.play[0][:], self.play[1][:]]
        s.removed = [self.removed[0][:], self.removed[1][:]]
        s.pile = [self.pile[0][:], self.pile[1][:]]
        s.neutral = self.neutral[:]
        s.m_card = self.m_card[:]
        s.m_stock = self.m_stock[:]
        s.m_src = self.m_src[:]
        s.stack = [e.clone() if isinstance(e, EffectFrame) else e[:] for e in self.stack]
        s.zero = self.zero
        s.over = self.over
        s.win = self.win
        s.sel = [self.sel[0][:], self.sel[1][:]]
        s.bans = self.bans[:]
        s.chosen = self.chosen[:]
        s.picks = [self.picks[0][:], self.picks[1][:]]
        return s

    def to_json(self) -> dict[str, Any]:
        """The whole state: card numbers (zones as hex strings, a byte per card), PRNG, prompt stack."""
        return {
            "rng": self.rng.get_state(),
            "t": [
                self.phase,
                self.active,
                self.first,
                self.turn,
                self.max_rounds,
                self.ap,
                self.gems,
                self.buys,
                self.bought,
                self.pool,
                self.wbonus,
                self.discount,
                self.played,
                self.wplayed,
                self.skill_turn,
                int(self.zero),
                int(self.over),
                self.win,
                *self.hp,
                *self.maxhp,
                *self.stars,
                *self.uses,
                *self.char,
            ],
            "zones": [
                bytes(self.hand[0]).hex(),
                bytes(self.hand[1]).hex(),
                bytes(self.deck[0]).hex(),
                bytes(self.deck[1]).hex(),
                bytes(self.disc[0]).hex(),
                bytes(self.disc[1]).hex(),
                bytes(self.play[0]).hex(),
                bytes(self.play[1]).hex(),
                bytes(self.removed[0]).hex(),
                bytes(self.removed[1]).hex(),
                bytes(self.pile[0]).hex(),
                bytes(self.pile[1]).hex(),
            ],
            "neutral": _hex(self.neutral),
            "market": bytes([c + 1 for c in self.m_card] + self.m_stock + self.m_src).hex(),
            "stack": [[-1, *e.to_json()] if isinstance(e, EffectFrame) else e for e in self.stack],
            "setup": [
                _hex(self.sel[0]),
                _hex(self.sel[1]),
                self.bans,
                self.chosen,
                _hex(self.picks[0]),
                _hex(self.picks[1]),
            ],
        }

    def hash_bytes(self) -> bytes:
        """The compact encoding `state_hash` digests (the same information as `to_json`).

        Layout: the PRNG words; then as int64s: the 28 values of `to_json()["t"]` in that
        order, the lengths of the hand, deck, discard, play, removed and character-pile lists
        (player 0 then 1 for each), of the neutral pile and of the two selection hands and
        pick lists, the Market's cards, stock and sources (each list as its length then its
        values), the bans and chosen packs, the stack size and each stack entry as its length
        then its ints (an effect frame as -1 then its six fields); then the card numbers of
        those zones, in that order, one byte each (card numbers are below 256).
        """
        hand, deck, disc, play, rem, pile = (
            self.hand,
            self.deck,
            self.disc,
            self.play,
            self.removed,
            self.pile,
        )
        h0, h1 = hand
        d0, d1 = deck
        x0, x1 = disc
        p0, p1 = play
        r0, r1 = rem
        q0, q1 = pile
        s0, s1 = self.sel
        k0, k1 = self.picks
        nt, mc, ms, mr = self.neutral, self.m_card, self.m_stock, self.m_src
        flat = [
            self.phase, self.active, self.first, self.turn, self.max_rounds, self.ap, self.gems,
            self.buys, self.bought, self.pool, self.wbonus, self.discount, self.played,
            self.wplayed, self.skill_turn, self.zero, self.over, self.win,
            *self.hp, *self.maxhp, *self.stars, *self.uses, *self.char,
            len(h0), len(h1), len(d0), len(d1), len(x0), len(x1), len(p0), len(p1), len(r0),
            len(r1), len(q0), len(q1), len(nt), len(s0), len(s1), len(k0), len(k1),
            len(mc), *mc, len(ms), *ms, len(mr), *mr, *self.bans, *self.chosen,
            len(self.stack),
        ]  # fmt: skip
        for e in self.stack:
            if isinstance(e, EffectFrame):
                flat += (7, -1, *e.to_json())
            else:
                flat.append(len(e))
                flat += e
        cards = bytes(
            [*h0, *h1, *d0, *d1, *x0, *x1, *p0, *p1, *r0, *r1, *q0, *q1, *nt, *s0, *s1, *k0, *k1]
        )
        return pack_prng(self.rng.get_state()) + pack_ints(flat) + cards

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Self:
        """Rebuild a state from `to_json()` output."""
        s = cls.__new__(cls)
        s.rng = Prng.from_state(data["rng"])
        t = [int(x) for x in data["t"]]
        (
            s.phase,
            s.active,
            s.first,
            s.turn,
            s.max_rounds,
            s.ap,
            s.gems,
            s.buys,
            s.bought,
            s.pool,
            s.wbonus,
            s.discount,
            s.played,
            s.wplayed,
            s.skill_turn,
        ) = t[:15]
        s.zero = bool(t[15])
        s.over = bool(t[16])
        s.win = t[17]

        s.hp, s.maxhp, s.stars, s.uses, s.char = t[18:20], t[20:22], t[22:24], t[24:26], t[26:28]
        z = [_unhex(x) for x in data["zones"]]
        s.hand, s.deck, s.disc = [z[0], z[1]], [z[2], z[3]], [z[4], z[5]]
        s.play, s.removed, s.pile = [z[6], z[7]], [z[8], z[9]], [z[10], z[11]]
        s.neutral = _unhex(data["neutral"])
        m = _unhex(data["market"])
        k = len(m) // 3
        s.m_card = [c - 1 for c in m[:k]]
        s.m_stock = m[k : 2 * k]
        s.m_src = m[2 * k :]
        s.stack = [
            EffectFrame.from_json([int(x) for x in e[1:]]) if e[0] == -1 else [int(x) for x in e]
            for e in data["stack"]
        ]
        sel0, sel1, bans, chosen, picks0, picks1 = data["setup"]
        s.sel = [_unhex(sel0), _unhex(sel1)]
        s.bans = [int(x) for x in bans]
        s.chosen = [int(x) for x in chosen]
        s.picks = [_unhex(picks0), _unhex(picks1)]
        return s

    # ------------------------------------------------------------------ views

    def market_view(self) -> list[dict[str, Any]]:
        """The Market as public data: slot, card id, stock, price and source pile."""
        return [
            {
                "slot": s,
                "card": C.IDS[c] if c >= 0 else None,
                "stock": self.m_stock[s],
                "price": self.price(s) if c >= 0 else None,
                "source": SOURCE_NAMES[self.m_src[s]],
            }
            for s, c in enumerate(self.m_card)
        ]

    def observation(self, player: int) -> dict[str, Any]:
        """What `player` sees: own hand; counts only for the opponent's hand and all decks."""
        ids = C.IDS
        opp = 1 - player
        setup_done = self.phase != SETUP
        top = self.stack[-1] if self.stack else None
        prompt: dict[str, Any] | None = None
        if isinstance(top, list):
            prompt = {"kind": PROMPT_NAMES[top[0]], "player": top[1]}
            if top[1] == player:
                prompt["args"] = top[2:]
        both_banned = self.bans[0] != -2 and self.bans[1] != -2
        return {
            "game": self.game,
            "player": player,
            "phase": PHASE_NAMES[self.phase],
            "turn": self.turn,
            "active": self.active,
            "first": self.first if setup_done else None,
            "current_player": self.current_player,
            "over": self.over,
            "winner": self.winner,
            "characters": (
                [ids[k] for k in self.char]
                if self.char[0] >= 0
                else [ids[k] if k >= 0 and p == player else None for p, k in enumerate(self.chosen)]
            ),
            "hp": self.hp,
            "max_hp": self.maxhp,
            "stars": self.stars,
            "skill_uses_left": self.uses,
            "ap": self.ap,
            "gems": self.gems,
            "buys": self.buys,
            "bought": bool(self.bought),
            "combat_damage": self.pool,
            "hand": sorted(ids[c] for c in self.hand[player]),
            "hand_sizes": [len(self.hand[0]), len(self.hand[1])],
            "deck_sizes": [len(self.deck[0]), len(self.deck[1])],
            "discards": [[ids[c] for c in self.disc[p]] for p in (0, 1)],
            "play_areas": [[ids[c] for c in self.play[p]] for p in (0, 1)],
            "removed": [[ids[c] for c in self.removed[p]] for p in (0, 1)],
            "character_pile_sizes": [len(self.pile[0]), len(self.pile[1])],
            "neutral_pile_size": len(self.neutral),
            "market": self.market_view(),
            "prompt": prompt,
            "selection_hand": sorted(ids[k] for k in self.sel[player]),
            "opponent_selection_hand_size": len(self.sel[opp]),
            "bans": [ids[b] if b >= 0 else None for b in self.bans] if both_banned else None,
            "my_picks": [ids[c] for c in self.picks[player]],
        }

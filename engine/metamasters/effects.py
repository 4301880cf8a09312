"""MetaMasters effect vocabulary, registered on the core EffectCompiler (compiled once at load).

A card's `effect` is a list of steps. A step aimed with `"to"` acts on the chosen target
("target": picked when the effect starts, see the card's `target` field), on the card itself
("self") or on the Actor a Link is attached to ("host"). An aim with no card does nothing.
`link_stat` and `aura` are continuous: they are read while the card is on the field (a Link's
bonus to its Actor, a face-up ∞ card's aura) and do nothing when the effect runs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from engine.core.effects import EffectCompiler, EffectFrame, Param

if TYPE_CHECKING:
    from engine.metamasters.state import MetaMastersState

Run = Callable[["MetaMastersState", EffectFrame], None]

TRAITS = ("meme", "crypto", "legend", "bot")
#: what `recover` may bring back ("any" = any card but a Token)
RECOVER_KINDS = ("any", "actor", "link", "special")

fx: EffectCompiler[MetaMastersState] = EffectCompiler("metamasters")

_AIM = Param("str", choices=("target", "self", "host"))
_N = Param("int", default=1, min=1, max=5)


def _aimed(s: MetaMastersState, f: EffectFrame, to: str) -> int:
    if to == "target":
        return f.target
    if to == "self":
        return f.source
    return s.host[f.source] if f.source >= 0 else -1


def _actor_op(to: str, act: Callable[[MetaMastersState, int], None]) -> Run:
    def run(s: MetaMastersState, f: EffectFrame) -> None:
        iid = _aimed(s, f, to)
        if iid >= 0 and s.zone[iid] == s.Z_ACTOR:
            act(s, iid)

    return run


@fx.op("draw", n=_N)
def _draw(p: dict[str, Any]) -> Run:
    n: int = p["n"]

    def run(s: MetaMastersState, f: EffectFrame) -> None:
        for _ in range(n):
            s.draw_card(f.controller)

    return run


@fx.op("mill", n=_N)
def _mill(p: dict[str, Any]) -> Run:
    n: int = p["n"]
    return lambda s, f: s.mill(1 - f.controller, n)


@fx.op("search", trait=Param("str", choices=TRAITS))
def _search(p: dict[str, Any]) -> Run:
    trait: str = p["trait"]
    return lambda s, f: s.search_deck(f.controller, trait)


@fx.op("recover", kind=Param("str", default="any", choices=RECOVER_KINDS))
def _recover(p: dict[str, Any]) -> Run:
    kind = RECOVER_KINDS.index(p["kind"])
    return lambda s, f: s.recover_from_trash(f.controller, kind)


@fx.op("discard_random", n=_N)
def _discard_random(p: dict[str, Any]) -> Run:
    n: int = p["n"]
    return lambda s, f: s.discard_random(1 - f.controller, n)


@fx.op("extra_play", n=_N)
def _extra_play(p: dict[str, Any]) -> Run:
    n: int = p["n"]

    def run(s: MetaMastersState, f: EffectFrame) -> None:
        s.extra_plays += n

    return run


@fx.op("extra_attack", to=_AIM, n=_N)
def _extra_attack(p: dict[str, Any]) -> Run:
    n: int = p["n"]

    def act(s: MetaMastersState, iid: int) -> None:
        s.bonus_atk[iid] += n

    return _actor_op(p["to"], act)


@fx.op(
    "modify_stat", to=_AIM, stat=Param("str", choices=("ego", "int")), n=Param("int", min=-9, max=9)
)
def _modify_stat(p: dict[str, Any]) -> Run:
    n: int = p["n"]
    is_int = p["stat"] == "int"

    def act(s: MetaMastersState, iid: int) -> None:
        (s.int_mod if is_int else s.ego_mod)[iid] += n

    return _actor_op(p["to"], act)


@fx.op("switch_position", to=_AIM)
def _switch_position(p: dict[str, Any]) -> Run:
    def act(s: MetaMastersState, iid: int) -> None:
        if s.faceup[iid]:
            s.pos[iid] ^= 1

    return _actor_op(p["to"], act)


@fx.op("destroy", to=_AIM)
def _destroy(p: dict[str, Any]) -> Run:
    return _actor_op(p["to"], lambda s, iid: s.remove_actor(iid, s.Z_TRASH))


@fx.op("exile", to=_AIM)
def _exile(p: dict[str, Any]) -> Run:
    return _actor_op(p["to"], lambda s, iid: s.remove_actor(iid, s.Z_EXILE))


@fx.op("bounce", to=_AIM)
def _bounce(p: dict[str, Any]) -> Run:
    return _actor_op(p["to"], lambda s, iid: s.remove_actor(iid, s.Z_HAND))


@fx.op("destroy_special", to=_AIM)
def _destroy_special(p: dict[str, Any]) -> Run:
    to: str = p["to"]

    def run(s: MetaMastersState, f: EffectFrame) -> None:
        iid = _aimed(s, f, to)
        if iid >= 0 and s.zone[iid] == s.Z_SPECIAL:
            s.remove_special(iid)

    return run


@fx.op("restore_token", n=_N)
def _restore_token(p: dict[str, Any]) -> Run:
    n: int = p["n"]

    def run(s: MetaMastersState, f: EffectFrame) -> None:
        for _ in range(n):
            s.restore_token(f.controller)

    return run


@fx.op("destroy_token", n=_N)
def _destroy_token(p: dict[str, Any]) -> Run:
    n: int = p["n"]

    def run(s: MetaMastersState, f: EffectFrame) -> None:
        for _ in range(n):
            if not s.over:
                s.destroy_token(1 - f.controller)

    return run


@fx.op("negate_attack")
def _negate_attack(p: dict[str, Any]) -> Run:
    def run(s: MetaMastersState, f: EffectFrame) -> None:
        if s.atk_a >= 0:
            s.atk_neg = 1

    return run


def _continuous(s: MetaMastersState, f: EffectFrame) -> None:
    """Continuous parts are read from the card while it is on the field; running does nothing."""


@fx.op(
    "link_stat",
    ego=Param("int", default=0, min=-9, max=9),
    int=Param("int", default=0, min=-9, max=9),
)
def _link_stat(p: dict[str, Any]) -> Run:
    return _continuous


@fx.op(
    "aura",
    stat=Param("str", choices=("ego", "int")),
    n=Param("int", min=-9, max=9),
    side=Param("str", choices=("own", "opp")),
)
def _aura(p: dict[str, Any]) -> Run:
    return _continuous

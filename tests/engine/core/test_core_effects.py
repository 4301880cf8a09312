"""The effects framework: compile once, check parameters, suspend and resume on choices."""

from __future__ import annotations

from typing import Any

import pytest

from engine.core.effects import (
    Continuous,
    EffectCompiler,
    EffectFrame,
    Param,
    Step,
    resume_effect,
    run_effect,
)
from engine.core.errors import CatalogueError


class Toy:
    """A minimal game state for the framework tests."""

    def __init__(self) -> None:
        self.log: list[str] = []
        self.mp = 0
        self.waiting: list[int] = []


fx: EffectCompiler[Toy] = EffectCompiler("toy")


@fx.op("gain", n=Param("int", min=1, max=5))
class Gain(Step[Toy]):
    def __init__(self, p: dict[str, Any]) -> None:
        self.n = p["n"]

    def run(self, state: Toy, frame: EffectFrame) -> bool:
        state.mp += self.n
        state.log.append(f"gain {self.n}")
        return True


@fx.op("say", word=Param("str", "hi", choices=("hi", "bye")))
class Say(Step[Toy]):
    def __init__(self, p: dict[str, Any]) -> None:
        self.word = p["word"]

    def run(self, state: Toy, frame: EffectFrame) -> bool:
        state.log.append(self.word)
        return True


@fx.op("pick")
class Pick(Step[Toy]):
    def run(self, state: Toy, frame: EffectFrame) -> bool:
        state.waiting.append(frame.controller)
        return False

    def resume(self, state: Toy, frame: EffectFrame, choice: int) -> bool:
        state.waiting.pop()
        frame.target = choice
        state.log.append(f"picked {choice}")
        return True


@fx.named("double")
class Double(Step[Toy]):
    def run(self, state: Toy, frame: EffectFrame) -> bool:
        state.mp *= 2
        return True


@fx.op("static", n=Param("int", 1))
def _static(p: dict[str, Any]) -> Step[Toy]:
    return Continuous(p)


def test_compile_and_run_in_order() -> None:
    effect = fx.compile(
        [{"op": "gain", "n": 2}, {"op": "say"}, {"op": "python", "name": "double"}], "CARD-1"
    )
    assert effect.ops == ("gain", "say", "python:double")
    st = Toy()
    assert run_effect(st, effect, EffectFrame(0, 0, 0))
    assert st.mp == 4 and st.log == ["gain 2", "hi"]


def test_suspend_on_choice_and_resume() -> None:
    effect = fx.compile(
        [{"op": "gain", "n": 1}, {"op": "pick"}, {"op": "say", "word": "bye"}], "CARD-2"
    )
    st = Toy()
    frame = EffectFrame(0, 5, 1)
    assert not run_effect(st, effect, frame)
    assert st.waiting == [1] and frame.step == 1
    # the frame serialises between the two halves
    frame = EffectFrame.from_json(frame.to_json())
    assert resume_effect(st, effect, frame, 42)
    assert st.log == ["gain 1", "picked 42", "bye"] and frame.target == 42


@pytest.mark.parametrize(
    ("decl", "message"),
    [
        ({"op": "gain"}, "list of steps"),
        ([{"op": "fly"}], "unknown operation 'fly'"),
        ([{"op": "gain"}], "missing parameter 'n'"),
        ([{"op": "gain", "n": 9}], "must be <= 5"),
        ([{"op": "gain", "n": "2"}], "expected int"),
        ([{"op": "gain", "n": True}], "expected int"),
        ([{"op": "gain", "n": 1, "x": 1}], "unknown parameter"),
        ([{"op": "say", "word": "yo"}], "expected one of"),
        ([{"op": "python", "name": "nope"}], "unknown named effect"),
        (["gain"], "each step is an object"),
    ],
)
def test_bad_declarations_name_the_card(decl: Any, message: str) -> None:
    with pytest.raises(CatalogueError) as err:
        fx.compile(decl, "BAD-7")
    assert "BAD-7" in str(err.value) and message in str(err.value)


def test_registration_guards() -> None:
    with pytest.raises(ValueError):
        fx.op("python")
    with pytest.raises(ValueError):
        fx.op("gain")(Gain)
    assert "gain" in fx.op_names and "double" in fx.named_effects


def test_every_step_is_named_after_its_operation_and_continuous_steps_do_nothing() -> None:
    effect = fx.compile([{"op": "static", "n": 3}, {"op": "gain", "n": 1}], "CARD-3")
    static, gain = effect.steps
    assert (static.op, gain.op) == ("static", "gain")
    assert isinstance(static, Continuous) and static.params == {"n": 3}
    st = Toy()
    assert run_effect(st, effect, EffectFrame(0, 0, 0)) and st.log == ["gain 1"]

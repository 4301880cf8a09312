"""The effects framework: card effects declared as data, compiled once at catalogue load.

A card's effect is declared in its catalogue entry as a list of steps, each naming an
operation of the game's vocabulary with its parameters::

    "effect": [{"op": "draw", "n": 1}, {"op": "gain_mp", "n": 2}]

and, for the rare card that does not fit the vocabulary, a named Python effect::

    "effect": [{"op": "python", "name": "solomon_grundy"}]

Each game builds one `EffectCompiler` and registers its operations, one style for all: every
operation is a `Step` subclass whose constructor takes the checked parameters, registered with
`@compiler.op("draw", n=Param("int", min=1))` on the class (or on a small factory choosing
between two classes) and named effects with `@compiler.named("...")`. Every card's declaration
is compiled once when the catalogue is loaded (`compiler.compile(decl, where=card_id)`; a bad
declaration raises CatalogueError naming the card, the step and the parameter).

A step talks to the match through the small protocol its game's effects module declares (the
game's state implements it), never through the state's fields.

Running an effect: the game keeps an `EffectFrame` (which effect, which step, the source
card, the controller, a target and a value register) on its prompt stack and calls
`run_effect(state, effect, frame)`. A step that needs a player's choice pushes a prompt on
the game's stack and returns False (suspend); when the player answers, the game calls
`resume_effect(state, effect, frame, choice)`, which lets the step consume the answer and
then runs the remaining steps. Frames are plain ints, so a state serialises between any two
choices. No generators, no threads.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

from engine.core.errors import CatalogueError

S = TypeVar("S")
F = TypeVar("F", bound=Callable[[dict[str, Any]], "Step[Any]"])

_REQUIRED: Any = object()


class Step(Generic[S]):
    """One compiled operation. `run` returns True to continue, False after pushing a prompt.

    A subclass takes the operation's checked parameters in its constructor (one without
    parameters need not define one); the compiler names the instance after the operation (`op`).
    """

    __slots__ = ("op",)

    op: str

    def __init__(self, p: dict[str, Any] | None = None) -> None:
        """An operation without parameters takes nothing from them."""

    def run(self, state: S, frame: EffectFrame) -> bool:
        """Perform the operation; return False if it pushed a prompt and must be resumed."""
        raise NotImplementedError

    def resume(self, state: S, frame: EffectFrame, choice: int) -> bool:
        """Consume a player's answer to this step's prompt; False to wait for another answer."""
        raise NotImplementedError(f"operation {self.op!r} takes no choice")


class Continuous(Step[Any]):
    """A continuous (static) ability: running it does nothing; the rules read its parameters
    while the card is in play."""

    __slots__ = ("params",)

    def __init__(self, params: dict[str, Any]) -> None:
        self.params = params

    def run(self, state: Any, frame: EffectFrame) -> bool:
        """Continuous abilities do nothing when run."""
        return True


class BoardCall(Step[Any]):
    """An operation that is one call of the board with the step's argument: `board.<method>(arg)`."""

    __slots__ = ("arg", "method")

    def __init__(self, method: str, arg: Any) -> None:
        self.method = method
        self.arg = arg

    def run(self, state: Any, frame: EffectFrame) -> bool:
        """Make the call."""
        getattr(state, self.method)(self.arg)
        return True


class PlayerCall(BoardCall):
    """An operation that is one call of the board for a player with the step's argument:
    `board.<method>(player, arg)`, the player being the effect's controller or their opponent."""

    __slots__ = ("side",)

    def __init__(self, method: str, arg: Any, opponent: bool) -> None:
        super().__init__(method, arg)
        #: 1 for the opponent, 0 for the controller (xor-ed with the controller)
        self.side = int(opponent)

    def run(self, state: Any, frame: EffectFrame) -> bool:
        """Make the call."""
        getattr(state, self.method)(frame.controller ^ self.side, self.arg)
        return True


#: whom a board call names: the effect's controller ("self"), their opponent, or no player
#: (None: the board method takes the argument alone)
Whom = Literal["self", "opponent"] | None


def board_call(method: str, whom: Whom, arg: Any) -> BoardCall:
    """The step calling `board.<method>` with `arg`, for `whom`."""
    return BoardCall(method, arg) if whom is None else PlayerCall(method, arg, whom == "opponent")


def amount_ops(compiler: EffectCompiler[Any], table: Mapping[str, tuple[str, Whom, Param]]) -> None:
    """Register an operation with one parameter `n` for each row of `table`, operation name ->
    (the board method it calls with n, whom it names, the Param of n): see `board_call`."""
    for name, (method, whom, n) in table.items():
        compiler.op(name, n=n)(step_of(_amount_step, method, whom))


def _amount_step(method: str, whom: Whom, p: dict[str, Any]) -> BoardCall:
    return board_call(method, whom, p["n"])


def step_of(build: Callable[..., Step[Any]], *args: Any) -> OpFactory:
    """The operation factory `build(*args, params)`: one step class (or builder) serving several
    operations, told apart by `args`."""

    def factory(params: dict[str, Any]) -> Step[Any]:
        return build(*args, params)

    return factory


@dataclass(slots=True, eq=False)
class EffectFrame:
    """The resolution state of one running effect; serialises to a list of ints."""

    effect: int
    source: int
    controller: int
    step: int = 0
    target: int = -1
    value: int = 0

    def to_json(self) -> list[int]:
        """`[effect, source, controller, step, target, value]`."""
        return [self.effect, self.source, self.controller, self.step, self.target, self.value]

    @staticmethod
    def from_json(data: Sequence[int]) -> EffectFrame:
        """Rebuild a frame from `to_json()` output."""
        return EffectFrame(*data)

    def clone(self) -> EffectFrame:
        """An independent copy."""
        return EffectFrame(
            self.effect, self.source, self.controller, self.step, self.target, self.value
        )


@dataclass(frozen=True, slots=True)
class Param:
    """One parameter of an operation: type ("int", "str", "bool", "list"), default, constraints."""

    type: str
    default: Any = _REQUIRED
    choices: tuple[Any, ...] | None = None
    min: int | None = None
    max: int | None = None


class Effect(Generic[S]):
    """A compiled effect: its steps in order, and the operation names (for coverage)."""

    __slots__ = ("ops", "steps", "where")

    def __init__(self, where: str, steps: tuple[Step[S], ...]) -> None:
        self.where = where
        self.steps = steps
        self.ops = tuple(s.op for s in steps)

    def __len__(self) -> int:
        return len(self.steps)


#: An operation factory (a Step subclass, or a function choosing one): checked parameters ->
#: a compiled step.
OpFactory = Callable[[dict[str, Any]], Step[Any]]


class EffectCompiler(Generic[S]):
    """A game's vocabulary of effect operations and named Python effects."""

    def __init__(self, game: str) -> None:
        self.game = game
        self._ops: dict[str, tuple[OpFactory, dict[str, Param]]] = {}
        self._named: dict[str, tuple[OpFactory, dict[str, Param]]] = {}

    def op(self, name: str, **params: Param) -> Callable[[F], F]:
        """Decorator registering an operation (a Step subclass or factory) under `name`."""
        if name == "python":
            raise ValueError("'python' is reserved for named effects")
        return _registrar(self._ops, "operation", name, params)

    def named(self, name: str, **params: Param) -> Callable[[F], F]:
        """Decorator registering a named Python effect (the vocabulary's escape hatch)."""
        return _registrar(self._named, "named effect", name, params)

    @property
    def op_names(self) -> list[str]:
        """Every registered operation name."""
        return sorted(self._ops)

    @property
    def named_effects(self) -> list[str]:
        """Every registered named Python effect."""
        return sorted(self._named)

    def compile(self, decl: Any, where: str) -> Effect[S]:
        """Compile a declaration (a list of steps) once; CatalogueError names `where` and the step."""
        if not isinstance(decl, list):
            raise CatalogueError(
                f"catalogue {self.game}: card {where!r}: effect must be a list of steps"
            )
        steps: list[Step[S]] = []
        for i, raw in enumerate(decl):
            at = f"catalogue {self.game}: card {where!r}: effect step {i}"
            if not isinstance(raw, dict) or not isinstance(raw.get("op"), str):
                raise CatalogueError(f"{at}: each step is an object with a string 'op'")
            op = raw["op"]
            args = {k: v for k, v in raw.items() if k != "op"}
            if op == "python":
                name = args.pop("name", None)
                if name not in self._named:
                    raise CatalogueError(
                        f"{at}: unknown named effect {name!r}; known: {self.named_effects}"
                    )
                factory, params = self._named[name]
                label = f"python:{name}"
            else:
                if op not in self._ops:
                    raise CatalogueError(f"{at}: unknown operation {op!r}; known: {self.op_names}")
                factory, params = self._ops[op]
                label = op
            built = factory(_check_params(at, label, args, params))
            if not isinstance(built, Step):  # pragma: no cover - a game's programming error
                raise TypeError(f"factory for {label!r} returned {built!r}, not a Step")
            built.op = label
            steps.append(built)
        return Effect(where, tuple(steps))


def _registrar(
    table: dict[str, tuple[OpFactory, dict[str, Param]]],
    what: str,
    name: str,
    params: dict[str, Param],
) -> Callable[[F], F]:
    """A decorator putting a factory and its parameters in `table` under `name`, once."""

    def register(factory: F) -> F:
        if name in table:
            raise ValueError(f"{what} {name!r} registered twice")
        table[name] = (factory, params)
        return factory

    return register


def _check_params(
    at: str, op: str, args: Mapping[str, Any], params: Mapping[str, Param]
) -> dict[str, Any]:
    unknown = set(args) - set(params)
    if unknown:
        raise CatalogueError(f"{at}: operation {op!r}: unknown parameter(s) {sorted(unknown)}")
    out: dict[str, Any] = {}
    for name, spec in params.items():
        if name not in args:
            if spec.default is _REQUIRED:
                raise CatalogueError(f"{at}: operation {op!r}: missing parameter {name!r}")
            out[name] = spec.default
            continue
        value = args[name]
        ok = {
            "int": isinstance(value, int) and not isinstance(value, bool),
            "str": isinstance(value, str),
            "bool": isinstance(value, bool),
            "list": isinstance(value, list),
        }.get(spec.type, False)
        if not ok:
            raise CatalogueError(
                f"{at}: operation {op!r}: parameter {name!r}: expected {spec.type}, got {value!r}"
            )
        if spec.choices is not None and value not in spec.choices:
            raise CatalogueError(
                f"{at}: operation {op!r}: parameter {name!r}: expected one of {list(spec.choices)}, got {value!r}"
            )
        if spec.min is not None and isinstance(value, int) and value < spec.min:
            raise CatalogueError(
                f"{at}: operation {op!r}: parameter {name!r}: must be >= {spec.min}"
            )
        if spec.max is not None and isinstance(value, int) and value > spec.max:
            raise CatalogueError(
                f"{at}: operation {op!r}: parameter {name!r}: must be <= {spec.max}"
            )
        out[name] = value
    return out


def run_effect(state: S, effect: Effect[S], frame: EffectFrame) -> bool:
    """Run `effect` from `frame.step`; True when finished, False when a step awaits a choice."""
    steps = effect.steps
    n = len(steps)
    while frame.step < n:
        if not steps[frame.step].run(state, frame):
            return False
        frame.step += 1
    return True


def resume_effect(state: S, effect: Effect[S], frame: EffectFrame, choice: int) -> bool:
    """Give `choice` to the suspended step, then run the rest; True when the effect finished."""
    if not effect.steps[frame.step].resume(state, frame, choice):
        return False
    frame.step += 1
    return run_effect(state, effect, frame)

"""Bots for every game: a uniformly random legal player and a one-ply greedy player."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from engine.core.actions import Action
from engine.core.errors import EngineError
from engine.core.game import Deck, Game, get_game
from engine.core.prng import Prng
from engine.core.state import GameState
from engine.core.transcript import CHECKPOINT_EVERY, Recorder, Transcript

#: a match longer than this is a bug in a game (every game must end)
MAX_ACTIONS = 100_000
#: determinized samples the greedy bot scores each action on (see docs/benchmarks.md, "Bots")
GREEDY_SAMPLES = 4
_WIN = 1e9


class Bot(Protocol):
    """Anything that picks a legal action for the current player."""

    def choose(self, state: GameState) -> Action:
        """Return one of `state.legal_actions()`."""
        ...


def considered_actions(state: GameState) -> list[Action]:
    """The legal actions a bot chooses among: the game's `bot_preferences` drop stalling moves."""
    actions = state.legal_actions()
    prefer = get_game(state.game).bot_preferences
    if prefer is None or len(actions) == 1:
        return actions
    return prefer(state, actions) or actions


class RandomBot:
    """Uniform over the legal actions the game's bot preferences keep, using the engine's PRNG
    with its own seed."""

    __slots__ = ("prng",)

    def __init__(self, seed: int = 0) -> None:
        self.prng = Prng(seed)

    def choose(self, state: GameState) -> Action:
        """Pick uniformly among the actions the game's bot preferences keep."""
        actions = considered_actions(state)
        return actions[self.prng.below(len(actions))] if len(actions) > 1 else actions[0]


class GreedyBot:
    """One-ply lookahead on what its player may know: each legal move (in its player's ids,
    `legal_moves`) is applied to a few determinized samples of the state (`Game.determinize`:
    the opponent's hidden cards, deck orders and the PRNG dealt anew), never to the real
    state, and scored by `Game.heuristic` averaged over the samples.

    It weighs only the actions the game's `bot_preferences` keep (`considered_actions`).
    A win scores +inf, a loss -inf; ties go to the first action in `legal_actions()` order.
    The samples come from the bot's own `Prng(seed)`, so a bot's decisions are deterministic
    for its seed and the states it is shown (see docs/engine.md, "Bots").
    """

    __slots__ = ("game", "prng", "samples")

    def __init__(self, game: Game, seed: int = 0, samples: int = GREEDY_SAMPLES) -> None:
        if samples < 1:
            raise EngineError("the greedy bot needs at least one sample")
        self.game = game
        self.prng = Prng(seed)
        self.samples = samples

    def choose(self, state: GameState) -> Action:
        """Pick the considered action whose resulting states the heuristic likes best on average."""
        actions = considered_actions(state)
        if len(actions) == 1:
            return actions[0]
        me = state.current_player
        determinize = self.game.determinize
        heuristic = self.game.heuristic
        worlds = [determinize(state, me, self.prng) for _ in range(self.samples)]
        best = actions[0]
        best_score = -_WIN * 2 * self.samples
        # the considered actions as `me` names them (`legal_moves` is this over every action)
        moves = [state.project(a, me) for a in actions]
        for action, move in zip(actions, moves, strict=True):
            score = 0.0
            for world in worlds:
                # the move as its player names it: a sample deals the hidden instances anew
                child = world.clone()
                child.apply(world.resolve(move["action"], me))
                if child.is_over:
                    w = child.winner
                    score += _WIN if w == me else (-_WIN if w is not None else 0.0)
                else:
                    score += heuristic(child, me)
            if score > best_score:
                best, best_score = action, score
        return best


BOT_NAMES = ("random", "greedy")


def make_bot(name: str, game: Game, seed: int) -> Bot:
    """Build a bot by name ("random" or "greedy")."""
    if name == "random":
        return RandomBot(seed)
    if name == "greedy":
        return GreedyBot(game, seed)
    raise EngineError(f"unknown bot {name!r}; known: {', '.join(BOT_NAMES)}")


def play_match(
    game: str | Game,
    decks: tuple[Deck, Deck],
    seed: int,
    bots: Sequence[Bot],
    options: Mapping[str, Any] | None = None,
    *,
    every: int = CHECKPOINT_EVERY,
    max_actions: int = MAX_ACTIONS,
) -> tuple[GameState, Transcript]:
    """Play a whole match between two bots; return the final state and its transcript."""
    name = game if isinstance(game, str) else game.name
    get_game(name)
    rec = Recorder(name, decks, seed, options, every)
    state = rec.state
    apply = rec.apply
    n = 0
    while not state.is_over:
        n += 1
        if n > max_actions:
            raise EngineError(f"{name}: match did not end within {max_actions} actions")
        apply(bots[state.current_player].choose(state))
    return state, rec.finish()

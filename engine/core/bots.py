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
    """One-ply lookahead: apply each legal action on a clone, score it with `Game.heuristic`.

    A win scores +inf, a loss -inf; ties go to the first action in `legal_actions()` order, so
    the bot is deterministic. Each game's heuristic reads only what `me` may see (own hand,
    public zones, counts; never the opponent's hand, face-down cards or deck order), but the
    lookahead applies actions to a clone of the real state, so the immediate outcome of a draw,
    shuffle or random effect is the real one (see docs/engine.md, "Bots").
    """

    __slots__ = ("game",)

    def __init__(self, game: Game, seed: int = 0) -> None:
        self.game = game

    def choose(self, state: GameState) -> Action:
        """Pick the action whose resulting state the heuristic likes best."""
        actions = considered_actions(state)
        if len(actions) == 1:
            return actions[0]
        me = state.current_player
        best = actions[0]
        best_score = -_WIN * 2
        for action in actions:
            child = state.clone()
            child.apply(action)
            if child.is_over:
                w = child.winner
                score = _WIN if w == me else (-_WIN if w is not None else 0.0)
            else:
                score = self.game.heuristic(child, me)
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

"""A recorded match step by step: the board a spectator sees after each action of a transcript
(the audit page's replay). Nothing here vouches for the transcript: the verifier does that."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine import Action, EngineError, Transcript, get_game
from ledger.errors import InvalidInput
from ledger.matches.options import check_options
from ledger.protocol.signedmoves import engine_transcript


@dataclass(frozen=True)
class ReplayStep:
    """The transcript's actions (seat and label of each) and the board after `step` of them."""

    total: int
    step: int
    actions: list[dict[str, Any]]
    observation: dict[str, Any]


def replay_steps(transcript: Any, step: int) -> ReplayStep:
    """Replay `transcript` (the engine's, or a signed `metaledger.transcript/2` around it) up to `step` actions (clamped to its length); every action's seat and
    label, and the spectator's board there. InvalidInput for a malformed transcript or an action
    the rules refuse (naming its index)."""
    try:
        t = Transcript.from_json(
            engine_transcript(transcript) if isinstance(transcript, dict) else transcript
        )
        game = get_game(t.game)
        check_options(game.name, game.option_schema, t.options)  # e.g. no Token count of 10^9
        state = game.new_match(
            (t.decks[0], t.decks[1]), t.seed, {**game.default_options, **t.options}
        )
    except (EngineError, KeyError, TypeError, ValueError) as exc:
        raise InvalidInput(f"transcript: {exc}", field="transcript") from None
    stop = min(max(step, 0), len(t.actions))
    actions: list[dict[str, Any]] = []
    board = state.observation(None) if stop == 0 else {}
    for index, raw in enumerate(t.actions):
        before = state.clone()
        try:
            action = Action.from_json(raw)
            state.apply(action)  # IllegalAction for a move the rules refuse
        except (EngineError, KeyError, TypeError, ValueError) as exc:
            raise InvalidInput(
                f"transcript action {index} does not replay: {exc}",
                field=f"transcript.actions[{index}]",
            ) from None
        actions.append(
            {"index": index, "seat": before.current_player, "label": before.label(action)}
        )
        if index + 1 == stop:
            board = state.observation(None)
    return ReplayStep(len(t.actions), stop, actions, board)

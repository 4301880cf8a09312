"""Transcripts: the header of a match plus its ordered actions, recorded and replayed.

Format "metaledger.transcript/1" (see docs/engine.md)::

    {"format": "metaledger.transcript/1", "game": "metax", "engine_version": "1.0.0",
     "ruleset_version": "...", "catalogue_hash": "<sha256 hex>", "seed": "0x2a",
     "decks": [{"card-id": copies, ...}, {...}], "options": {...},
     "actions": [["kind", 1, 2], ...],
     "checkpoints": {"every": 64, "hashes": ["<state hash after action 64>", ...]},
     "final_hash": "<state hash after the last action>", "over": true, "winner": 0}

A match that ends by forfeit rather than by the rules (a player resigned, or ran out of time
on their turn) carries `"forfeit": {"player": 1, "reason": "resign" | "timeout"}`; the key is
absent otherwise. Replay then requires the rules not to have ended the match first, and a
timeout to name the player whose turn it was; the other player wins.

`checkpoints.hashes[k]` is the state hash after `(k + 1) * every` actions. Replaying validates
every action (the game's `apply` raises IllegalAction naming the rule) and compares each
checkpoint, so a replay stops at the first divergent checkpoint and says where.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.core.actions import Action
from engine.core.errors import ReplayDiverged, TranscriptError
from engine.core.game import Deck, UnknownRuleset, get_game
from engine.core.state import GameState, canonical_json
from engine.core.version import ENGINE_VERSION

TRANSCRIPT_FORMAT = "metaledger.transcript/1"
#: default number of actions between two checkpoint hashes
CHECKPOINT_EVERY = 64
#: the ways a match can end other than by the rules
FORFEIT_REASONS = ("resign", "timeout")


@dataclass
class Transcript:
    """A recorded match: header, actions, checkpoint hashes, and the outcome."""

    game: str
    engine_version: str
    ruleset_version: str
    catalogue_hash: str
    seed: int
    decks: list[dict[str, int]]
    options: dict[str, Any]
    actions: list[list[Any]] = field(default_factory=list)
    checkpoint_every: int = CHECKPOINT_EVERY
    checkpoints: list[str] = field(default_factory=list)
    final_hash: str | None = None
    over: bool = False
    winner: int | None = None
    #: {"player": 0|1, "reason": "resign"|"timeout"} when the match ended by forfeit
    forfeit: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        """The transcript as JSON-able data (the documented format)."""
        data = {
            "format": TRANSCRIPT_FORMAT,
            "game": self.game,
            "engine_version": self.engine_version,
            "ruleset_version": self.ruleset_version,
            "catalogue_hash": self.catalogue_hash,
            "seed": hex(self.seed),
            "decks": [dict(sorted(d.items())) for d in self.decks],
            "options": self.options,
            "actions": self.actions,
            "checkpoints": {"every": self.checkpoint_every, "hashes": self.checkpoints},
            "final_hash": self.final_hash,
            "over": self.over,
            "winner": self.winner,
        }
        if self.forfeit is not None:
            data["forfeit"] = dict(self.forfeit)
        return data

    def canonical_bytes(self) -> bytes:
        """Canonical JSON bytes (what `transcriptHash` is computed over)."""
        return canonical_json(self.to_json())

    @staticmethod
    def from_json(data: Any) -> Transcript:
        """Parse and check the shape of a transcript; raise TranscriptError naming the field."""
        if not isinstance(data, Mapping):
            raise TranscriptError("a transcript is a JSON object")
        if data.get("format") != TRANSCRIPT_FORMAT:
            raise TranscriptError(
                f"transcript format must be {TRANSCRIPT_FORMAT!r}, got {data.get('format')!r}"
            )
        for key, typ in (
            ("game", str),
            ("engine_version", str),
            ("ruleset_version", str),
            ("catalogue_hash", str),
            ("seed", str),
            ("decks", list),
            ("options", dict),
            ("actions", list),
            ("checkpoints", dict),
        ):
            if not isinstance(data.get(key), typ):
                raise TranscriptError(f"transcript field {key!r} must be a {typ.__name__}")
        try:
            seed = int(data["seed"], 16)
        except ValueError:
            raise TranscriptError(
                f"transcript seed must be a hex string, got {data['seed']!r}"
            ) from None
        if seed < 0:
            raise TranscriptError("transcript seed must be non-negative")
        decks = data["decks"]
        if len(decks) != 2 or not all(
            isinstance(d, dict)
            and all(
                isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool)
                for k, v in d.items()
            )
            for d in decks
        ):
            raise TranscriptError("transcript decks must be two objects {card_id: copies}")
        for i, a in enumerate(data["actions"]):
            if (
                not isinstance(a, list)
                or not a
                or not isinstance(a[0], str)
                or not all(isinstance(x, int) and not isinstance(x, bool) for x in a[1:])
            ):
                raise TranscriptError(f"transcript action {i} must be [kind, *int_args], got {a!r}")
        cp = data["checkpoints"]
        every = cp.get("every")
        hashes = cp.get("hashes")
        if (
            not isinstance(every, int)
            or every < 1
            or not isinstance(hashes, list)
            or not all(isinstance(h, str) for h in hashes)
        ):
            raise TranscriptError("transcript checkpoints must be {every: int >= 1, hashes: [str]}")
        final_hash = data.get("final_hash")
        winner = data.get("winner")
        if final_hash is not None and not isinstance(final_hash, str):
            raise TranscriptError("transcript final_hash must be a string or null")
        if winner not in (None, 0, 1) or isinstance(winner, bool):
            raise TranscriptError("transcript winner must be 0, 1 or null")
        forfeit = data.get("forfeit")
        if forfeit is not None and (
            not isinstance(forfeit, Mapping)
            or set(forfeit) != {"player", "reason"}
            or forfeit["player"] not in (0, 1)
            or isinstance(forfeit["player"], bool)
            or forfeit["reason"] not in FORFEIT_REASONS
        ):
            raise TranscriptError(
                'transcript forfeit must be {"player": 0|1, "reason": "resign"|"timeout"}'
            )
        return Transcript(
            game=data["game"],
            engine_version=data["engine_version"],
            ruleset_version=data["ruleset_version"],
            catalogue_hash=data["catalogue_hash"],
            seed=seed,
            decks=[dict(d) for d in decks],
            options=dict(data["options"]),
            actions=[list(a) for a in data["actions"]],
            checkpoint_every=every,
            checkpoints=list(hashes),
            final_hash=final_hash,
            over=bool(data.get("over", False)),
            winner=winner,
            forfeit=dict(forfeit) if forfeit is not None else None,
        )


class Recorder:
    """Start a match and record every action applied through it (with checkpoint hashes)."""

    __slots__ = ("state", "transcript")

    def __init__(
        self,
        game: str,
        decks: tuple[Deck, Deck],
        seed: int,
        options: Mapping[str, Any] | None = None,
        every: int = CHECKPOINT_EVERY,
        ruleset: str | None = None,
    ) -> None:
        g = get_game(game)
        rs = g.ruleset(ruleset)
        opts = {**rs.default_options, **(options or {})}
        self.state: GameState = g.new_match(decks, seed, opts, rs.version)
        self.transcript = Transcript(
            game=g.name,
            engine_version=ENGINE_VERSION,
            ruleset_version=rs.version,
            catalogue_hash=rs.catalogue_hash,
            seed=seed,
            decks=[dict(decks[0]), dict(decks[1])],
            options=opts,
            checkpoint_every=every,
        )

    def apply(self, action: Action) -> None:
        """Apply `action` to the state (IllegalAction if not legal) and record it."""
        raw = [action[0], *action[1]]
        # what `state.apply` runs, on the transcript form recorded (and replayed) below
        self.state._apply_each((raw,))
        t = self.transcript
        t.actions.append(raw)
        if len(t.actions) % t.checkpoint_every == 0:
            t.checkpoints.append(self.state.state_hash())

    def finish(self, forfeit: tuple[int, str] | None = None) -> Transcript:
        """Fill in the final hash and outcome, and return the transcript.

        `forfeit=(player, reason)` ends a running match: `player` resigned or timed out.
        """
        t = self.transcript
        t.final_hash = self.state.state_hash()
        t.over, t.winner, t.forfeit = outcome_of(self.state, forfeit)
        return t


def outcome_of(
    state: GameState, forfeit: tuple[int, str] | None = None
) -> tuple[bool, int | None, dict[str, Any] | None]:
    """(over, winner, forfeit record) of a state, optionally ended by `player`'s forfeit."""
    if forfeit is None:
        return state.is_over, state.winner, None
    player, reason = forfeit
    if reason not in FORFEIT_REASONS or player not in (0, 1):
        raise TranscriptError(
            f"a forfeit is (player 0|1, one of {FORFEIT_REASONS}), got {forfeit!r}"
        )
    if state.is_over:
        raise TranscriptError("the rules had already ended the match; there is nothing to forfeit")
    if reason == "timeout" and state.current_player != player:
        raise TranscriptError(
            f"player {player} cannot time out: it was player {state.current_player}'s turn"
        )
    return True, 1 - player, {"player": player, "reason": reason}


#: `ReplayResult.end_reason` of a match the engine's safety cap ended (a draw)
ENGINE_LIMIT_REASON = "engine-limit"


def end_reason_of(state: GameState, forfeit: tuple[int, str] | None = None) -> str:
    """How a match ended: "rules", "engine-limit" (the safety cap: a draw) or the forfeit's reason."""
    if forfeit is not None:
        return forfeit[1]
    return ENGINE_LIMIT_REASON if state.ended_by_engine_limit else "rules"


@dataclass
class ReplayResult:
    """The outcome of a verified replay."""

    state: GameState
    final_hash: str
    winner: int | None
    over: bool
    actions: int
    #: "rules", "engine-limit" (the engine's safety cap ended it: a draw), "resign" or "timeout"
    end_reason: str = "rules"


def _visiting(
    state: GameState, before_each: Callable[[int, GameState], None]
) -> Callable[[Sequence[Sequence[Any]], int, int], None]:
    """`state.apply_actions`, one action at a time, calling `before_each` before each."""

    def apply_actions(actions: Sequence[Sequence[Any]], start: int, stop: int) -> None:
        for k in range(start, min(stop, len(actions))):
            before_each(k, state)
            state.apply_actions(actions, k, k + 1)

    return apply_actions


def replay(
    transcript: Transcript | Mapping[str, Any],
    *,
    check_versions: bool = True,
    before_each: Callable[[int, GameState], None] | None = None,
) -> ReplayResult:
    """Replay a transcript under its own ruleset, validating every action and every checkpoint.

    `before_each(k, state)`, when given, sees the state before action k is applied (an auditor
    checks there what a player signed for that action); it must not change the state.

    Raises TranscriptError (malformed, another game, a ruleset the engine no longer plays, a
    catalogue hash other than that ruleset's, or an engine version that did not record it),
    ReplayRejected (an action the rules reject; names its index and rule) or ReplayDiverged
    (a checkpoint, the final hash or the winner differs; names the action count).
    """
    t = transcript if isinstance(transcript, Transcript) else Transcript.from_json(transcript)
    g = get_game(t.game)
    try:
        rs = g.ruleset(t.ruleset_version)
    except UnknownRuleset as exc:
        raise TranscriptError(f"transcript ruleset: {exc}") from None
    if check_versions:
        if t.catalogue_hash != rs.catalogue_hash:
            raise TranscriptError(
                f"transcript catalogue hash differs from the catalogue of ruleset {rs.version!r}"
            )
        if t.engine_version != ENGINE_VERSION and t.engine_version not in rs.engine_versions:
            raise TranscriptError(
                f"transcript engine version {t.engine_version!r} did not record ruleset "
                f"{rs.version!r}; this engine ({ENGINE_VERSION}) replays it from "
                f"{', '.join((*rs.engine_versions, ENGINE_VERSION))}"
            )
    state = g.new_match(
        (t.decks[0], t.decks[1]), t.seed, {**rs.default_options, **t.options}, rs.version
    )
    every = t.checkpoint_every
    checkpoints = t.checkpoints
    actions = t.actions
    total = len(actions)
    apply_actions: Callable[[Sequence[Sequence[Any]], int, int], None] = (
        state.apply_actions if before_each is None else _visiting(state, before_each)
    )
    # is_over is checked only at checkpoints and at the end: a game's apply rejects any
    # action once the match is over (the rule it names says so).
    n = 0
    for k, expected in enumerate(checkpoints):
        stop = (k + 1) * every
        if stop > total:
            break
        apply_actions(actions, n, stop)  # ReplayRejected names the index and the rule
        n = stop
        actual = state.state_hash()
        if actual != expected:
            raise ReplayDiverged(n, expected, actual)
    apply_actions(actions, n, total)
    final = state.state_hash()
    if t.final_hash is not None and final != t.final_hash:
        raise ReplayDiverged(len(t.actions), t.final_hash, final)
    forfeit = None if t.forfeit is None else (int(t.forfeit["player"]), str(t.forfeit["reason"]))
    over, winner, _ = outcome_of(state, forfeit)  # TranscriptError for an impossible forfeit
    if t.final_hash is not None and (winner != t.winner or over != t.over):
        raise ReplayDiverged(
            len(t.actions), f"over={t.over} winner={t.winner}", f"over={over} winner={winner}"
        )
    return ReplayResult(state, final, winner, over, len(t.actions), end_reason_of(state, forfeit))

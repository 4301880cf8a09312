"""The checks of a signed transcript (formats 2 and 3), a part of the bundle verifier
(`ledger.audit.verify`): the seat authorizations, every player's move signature on the entry hash
chain, the receipts (format 2) and the end acknowledgements, read against the verifier's one
replay of the transcript."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ledger.audit.checks import UNSIGNED, CheckFailed, Informational
from ledger.audit.checks import require as _require
from ledger.chain.contracts import AnchoredBatch, eip1271_accepts
from ledger.chain.transport import JsonRpc
from ledger.errors import InvalidInput
from ledger.protocol import eip712
from ledger.protocol.hexcodec import checksum_address as to_checksum_address
from ledger.protocol.hexcodec import from_hex, to_hex
from ledger.protocol.signatures import recover_low_s_address, recover_low_s_signer
from ledger.protocol.signedmoves import (
    RESIGN_ACTION,
    TIMEOUT_ACTION,
    EntryChain,
    SeatAuthorization,
    canonical_action,
    genesis_hash,
)

if TYPE_CHECKING:
    from engine import GameState, ReplayResult


@dataclass
class Replayed:
    """The one replay of a bundle's transcript: its outcome (or why it failed), the seat to move
    before each action it reached, and what each signed move resolved to there."""

    outcome: ReplayResult | None = None
    error: Exception | None = None
    movers: list[int] = field(default_factory=list)
    #: entry index -> the action its signed move resolves to (or why it does not)
    meant: dict[int, list[Any] | Exception] = field(default_factory=dict)

    def applied(self) -> int:
        """How many actions the replay applied."""
        from engine import ReplayRejected

        return len(self.movers) - (1 if isinstance(self.error, ReplayRejected) else 0)


def resolved_move(state: GameState, entry: dict[str, Any]) -> list[Any] | Exception | None:
    """The action a player's signed move means in `state` (None for a move that is no flat
    JSON list: `player-signatures` fails it before asking)."""
    import json

    move = entry["action"]
    if not (move.count("[") == 1 and move.startswith("[") and move.endswith("]")):
        return None
    try:
        return list(state.resolve(json.loads(move), int(entry["seat"])).to_json())
    except Exception as exc:  # reported by player-signatures at this entry
        return exc


class SignedTranscriptChecks(ABC):
    """The signed-transcript checks of a bundle's verifier, which supplies the bundle's parts,
    its anchoring event and its one replay."""

    b: dict[str, Any]
    t: dict[str, Any]
    signed: bool
    receipted: bool
    msg: dict[str, Any]
    domain: dict[str, Any]
    engine_t: dict[str, Any]
    rpc: JsonRpc
    _seat_digests: dict[int, bytes]

    @abstractmethod
    def event(self) -> AnchoredBatch:
        """The batch's anchoring event."""

    @abstractmethod
    def _replay(self) -> Replayed:
        """The one replay of the transcript."""

    def _signed_only(self) -> None:
        if not self.signed:
            raise Informational(UNSIGNED)

    def _entry_chain(self) -> EntryChain:
        return EntryChain(
            self.msg["matchId"], int(self.domain["chainId"]), self.domain["verifyingContract"]
        )

    def _signer(self) -> str:
        return str(to_checksum_address(self.b["result"]["signer"]))

    def _authorization(self, seat: dict[str, Any]) -> SeatAuthorization:
        return SeatAuthorization(
            match_id=self.msg["matchId"],
            game=self.msg["game"],
            ruleset_version=self.msg["rulesetVersion"],
            seat=int(seat["seat"]),
            deck_hash=seat["deck_hash"],
            seed_commit=seat["seed_commit"],
            session_key=seat["session_key"],
            expiry=int(seat["expiry"]),
        )

    def _seat_digest(self, seat: dict[str, Any]) -> bytes:
        # two checks read each seat's digest; the seat dicts live as long as the verifier
        digest = self._seat_digests.get(id(seat))
        if digest is None:
            digest = self._seat_digests[id(seat)] = eip712.digest(
                self._authorization(seat),
                int(self.domain["chainId"]),
                self.domain["verifyingContract"],
            )
        return digest

    def seat_authorizations(self) -> str:
        self._signed_only()
        seats = self.t["seats"]
        started = self.rpc.block(int(self.msg["ownershipBlock"]))
        _require(started is not None, "the ownership block is not on this chain")
        assert started is not None
        start_time = int(started["timestamp"], 16)
        anchored_at = self.event().block_number
        said: list[str] = []
        for i, seat in enumerate(seats):
            player = to_checksum_address(self.msg[f"player{i}"])
            _require(int(seat["seat"]) == i, "seat authorizations are listed by seat")
            _require(
                to_checksum_address(seat["player"]) == player,
                f"seat {i}'s authorization is not the signed player{i}'s",
            )
            _require(
                seat["deck_hash"].lower() == self.msg[f"deck{i}"].lower(),
                f"seat {i}'s authorization names another deck than the signed deck{i}",
            )
            _require(
                seat["seed_commit"].lower() == self.b["seeds"]["players"][i]["commit"].lower(),
                f"seat {i}'s authorization names another seed commitment than the bundle's",
            )
            _require(
                int(seat["expiry"]) >= start_time,
                f"seat {i}'s authorization expired ({seat['expiry']}) before the match started "
                f"(block {self.msg['ownershipBlock']} at {start_time})",
            )
            digest = self._seat_digest(seat)
            signature = from_hex(seat["signature"], "signature")
            if player == self._signer():
                _require(
                    seat["by_bot"] is True, f"seat {i} is the signer's but not marked as the bot"
                )
                _require(
                    recover_low_s_signer(digest, signature) == player
                    and to_checksum_address(seat["session_key"]) == player,
                    f"the bot seat {i}'s authorization is not the signer's own",
                )
                said.append(f"seat {i} the operator's bot")
                continue
            _require(not seat["by_bot"], f"seat {i} is marked as the bot but is {player}'s")
            if len(signature) == 65 and _recovers(digest, signature) == player:
                said.append(f"seat {i} {player} (EOA)")
                continue
            _require(
                bool(self.rpc.code(player, anchored_at))
                and eip1271_accepts(self.rpc, player, digest, signature, anchored_at),
                f"seat {i}'s authorization is not signed by {player} (neither its key nor, by "
                f"EIP-1271 at the anchoring block {anchored_at}, its contract)",
            )
            said.append(f"seat {i} {player} (EIP-1271 at block {anchored_at})")
        return (
            "; ".join(said)
            + f"; for this match, game, ruleset, deck and seed commitment, valid at the start ({start_time})"
        )

    def player_signatures(self) -> str:
        from engine import IllegalAction

        self._signed_only()
        seats = self.t["seats"]
        entries = self.t["entries"]
        chain = self._entry_chain()
        signer = self._signer()
        digests = (self._seat_digest(seats[0]), self._seat_digest(seats[1]))
        seed = int(self.engine_t["seed"], 16)
        prev = genesis_hash(self.msg["matchId"], digests, seed)
        _require(
            from_hex(self.t["genesis_hash"]) == prev,
            "the genesis hash does not bind this match, both seat authorizations and the seed",
        )
        actions = self.engine_t["actions"]
        forfeit = self.engine_t.get("forfeit")
        _require(
            len(entries) == len(actions) + (1 if forfeit else 0),
            f"{len(entries)} entries for {len(actions)} actions"
            + (" and a forfeit" if forfeit else ""),
        )
        bots = {i for i, s in enumerate(seats) if s["by_bot"]}
        session_keys = tuple(from_hex(to_checksum_address(s["session_key"])) for s in seats)
        replayed = self._replay()
        movers, applied = replayed.movers, replayed.applied()
        signed = [0, 0]
        receipted = self.receipted
        entry_hash = chain.entry_hash
        # the conditions are tested inline, their messages made only for a failure (a bundle
        # has hundreds of entries)
        for k, entry in enumerate(entries):
            seat = int(entry["seat"])
            action = entry["action"]
            if int(entry["index"]) != k:
                raise CheckFailed(f"entry indexes are not contiguous at {_entry_name(k, entry)}")
            expected = entry_hash(seat, k, prev, action, from_hex(entry["salt"], "salt"))
            if from_hex(entry["entry_hash"]) != expected:
                raise CheckFailed(
                    f"{_entry_name(k, entry)}: its hash is not its MatchAction's digest after the "
                    "previous entry (the hash chain is broken)"
                )
            if receipted and (
                _recovers(chain.receipt_digest(k, expected), from_hex(entry["receipt"])) != signer
            ):
                raise CheckFailed(f"{_entry_name(k, entry)}: the receipt is not the signer's")
            prev = expected
            if k >= len(actions):
                self._forfeit_entry(k, entry, forfeit, seats, bots, expected, session_keys)
                if entry["signature"] is not None:
                    signed[seat] += 1
                continue
            if k >= len(movers):
                raise CheckFailed(
                    f"{_entry_name(k, entry)}: the replay stopped before this action "
                    f"({replayed.error})"
                )
            if seat != movers[k]:
                raise CheckFailed(f"{_entry_name(k, entry)}: it is seat {movers[k]}'s move there")
            if entry["by_bot"]:
                if seat not in bots:
                    raise CheckFailed(
                        f"{_entry_name(k, entry)}: marked as the bot's, but seat {seat} is a "
                        "player's"
                    )
                if entry["signature"] is not None:
                    raise CheckFailed(f"{_entry_name(k, entry)}: a bot entry carries a signature")
                if action != _canonical_text(actions[k]):
                    raise CheckFailed(
                        f"{_entry_name(k, entry)}: the bot's entry is not the transcript's "
                        f"action {actions[k]}"
                    )
            else:
                if seat in bots:
                    raise CheckFailed(
                        f"{_entry_name(k, entry)}: the bot seat's move is not marked as the bot's"
                    )
                self._player_signed(k, seats[seat], expected, entry, session_keys[seat])
                if not (action.count("[") == 1 and action.startswith("[") and action.endswith("]")):
                    raise CheckFailed(f"{_entry_name(k, entry)}: a move is a flat JSON list")
                meant = replayed.meant[k]
                if isinstance(meant, IllegalAction | ValueError):
                    raise CheckFailed(
                        f"{_entry_name(k, entry)}: the signed move does not resolve: {meant}"
                    )
                if isinstance(meant, Exception):
                    raise meant
                if meant != list(actions[k]):
                    raise CheckFailed(
                        f"{_entry_name(k, entry)}: the player signed {action} (action {meant}), "
                        f"the transcript has {actions[k]}"
                    )
                signed[seat] += 1
            if k >= applied:
                raise CheckFailed(
                    f"{_entry_name(k, entry)}: the transcript's action {actions[k]} does not "
                    f"apply ({replayed.error})"
                )
        humans = [i for i in range(2) if i not in bots]
        parts = [f"seat {i}: {signed[i]} moves signed by its session key" for i in humans]
        bot_moves = sum(1 for e in entries if e["by_bot"])
        parts += [f"seat {i}: {bot_moves} moves of the operator's bot (its word)" for i in bots]
        if forfeit is not None and forfeit["reason"] == "timeout":
            parts.append(f"the timeout of seat {forfeit['player']} is the operator's word")
        chained = f"{len(entries)} entries chained from the genesis hash"
        return (
            f"{sum(signed)} player moves checked; "
            + "; ".join(parts)
            + (f"; {chained}, each receipted by {signer}" if self.receipted else f"; {chained}")
        )

    def _player_signed(
        self,
        k: int,
        seat: dict[str, Any],
        entry_hash: bytes,
        entry: dict[str, Any],
        session_key: bytes,
    ) -> None:
        """CheckFailed unless entry `k` carries a low-s signature of `entry_hash` by the seat's
        session key (`session_key`: its 20 bytes); the messages are made only for a failure."""
        if entry["signature"] is None:
            raise CheckFailed(f"{_entry_name(k, entry)}: a player's move without its signature")
        try:
            by = recover_low_s_address(entry_hash, entry["signature"])
        except InvalidInput as exc:
            raise CheckFailed(f"{_entry_name(k, entry)}: {exc.detail}") from None
        if by != session_key:
            raise CheckFailed(
                f"{_entry_name(k, entry)}: the signature is not by seat {seat['seat']}'s session "
                f"key {to_checksum_address(seat['session_key'])} (it recovers to "
                f"{to_checksum_address(to_hex(by))})"
            )

    def _forfeit_entry(
        self,
        k: int,
        entry: dict[str, Any],
        forfeit: dict[str, Any] | None,
        seats: list[dict[str, Any]],
        bots: set[int],
        entry_hash: bytes,
        session_keys: tuple[bytes, ...],
    ) -> None:
        name = _entry_name(k, entry)
        seat = int(entry["seat"])
        _require(forfeit is not None, f"{name}: an entry after the last action without a forfeit")
        assert forfeit is not None
        _require(
            seat == int(forfeit["player"]) and not entry["by_bot"],
            f"{name}: the forfeit is seat {forfeit['player']}'s",
        )
        if forfeit["reason"] == "resign":
            _require(
                entry["action"] == RESIGN_ACTION,
                f"{name}: the resignation entry is {RESIGN_ACTION}",
            )
            _require(seat not in bots, f"{name}: the bot does not resign")
            self._player_signed(k, seats[seat], entry_hash, entry, session_keys[seat])
        else:
            _require(
                entry["action"] == TIMEOUT_ACTION, f"{name}: the timeout entry is {TIMEOUT_ACTION}"
            )
            _require(entry["signature"] is None, f"{name}: a timeout is the operator's, unsigned")

    def players_acknowledged(self) -> str:
        self._signed_only()
        seats = self.t["seats"]
        entries = self.t["entries"]
        chain = self._entry_chain()
        final = from_hex(entries[-1]["entry_hash"]) if entries else from_hex(self.t["genesis_hash"])
        digest = chain.end_digest(len(entries), final)
        acks = {int(a["seat"]): a["signature"] for a in self.b["acknowledgements"]}
        humans = [i for i, s in enumerate(seats) if not s["by_bot"]]
        said = []
        for i in humans:
            if i in acks:
                _require(
                    _recovers(digest, from_hex(acks[i]))
                    == to_checksum_address(seats[i]["session_key"]),
                    f"seat {i}'s acknowledgement is not its session key's MatchEnd of these "
                    f"{len(entries)} entries",
                )
                said.append(f"seat {i} signed the end ({len(entries)} entries)")
                continue
            last = max(
                (k for k, e in enumerate(entries) if int(e["seat"]) == i and e["signature"]),
                default=-1,
            )
            after = len(entries) - 1 - last
            said.append(
                f"seat {i} did not acknowledge: "
                + (
                    f"entries {last + 1}–{len(entries) - 1} after its last signature are the operator's word"
                    if after
                    else "its last signature covers every entry"
                )
            )
        _require(set(acks) <= set(humans), "an acknowledgement for the bot's seat")
        count = sum(1 for i in humans if i in acks)
        raise Informational(f"{count}/{len(humans)}: " + "; ".join(said))


_CANONICAL_TEXTS: dict[str, str] = {}


def _canonical_text(action: list[Any]) -> str:
    """`canonical_action` of an engine action, remembered by its repr (bot entries repeat a few
    dozen actions; the repr tells `True` from `1` and `"1"`, which equality does not)."""
    key = repr(action)
    text = _CANONICAL_TEXTS.get(key)
    if text is None:
        if len(_CANONICAL_TEXTS) >= 1024:
            _CANONICAL_TEXTS.clear()
        text = _CANONICAL_TEXTS[key] = canonical_action(action)
    return text


def _entry_name(k: int, entry: dict[str, Any]) -> str:
    """How a failure names an entry."""
    return f"entry {k} (seat {entry['seat']}, {entry['action']})"


def _recovers(digest: bytes, signature: bytes) -> str | None:
    """The signer of a 65-byte low-s signature, or None when it is none."""
    try:
        return recover_low_s_signer(digest, signature)
    except InvalidInput:
        return None

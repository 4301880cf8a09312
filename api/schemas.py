"""Request and response bodies (they are the OpenAPI schema).

Request bodies are strict (no "3" -> 3, no true -> 1), refuse unknown fields, and bound every
string and number: integers to 64 bits at most."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ledger.auth.service import NonceGrant
from ledger.protocol.untrusted import INT64_MAX, INT64_MIN

Hex32 = Field(pattern=r"^0x[0-9a-fA-F]{64}$", description="32 bytes as 0x-hex")
#: a 65-byte r‖s‖v ECDSA signature
Signature65 = Field(pattern=r"^0x[0-9a-fA-F]{130}$", description="65 bytes r‖s‖v as 0x-hex")
#: a checksummed or lower-case address
AddressField = Field(pattern=r"^0x[0-9a-fA-F]{40}$", description="an address (20 bytes 0x-hex)")
#: how request bodies are validated
STRICT_INPUT = ConfigDict(extra="forbid", strict=True)
#: response bodies read straight from a stored row (or a dataclass) by attribute
FROM_ROWS = ConfigDict(from_attributes=True)
#: a card id as a deck names it
CardId = Annotated[str, Field(min_length=1, max_length=64)]
#: an argument of an action: a kind name or a 64-bit integer
ActionPart = (
    Annotated[str, Field(max_length=64)] | Annotated[int, Field(ge=INT64_MIN, le=INT64_MAX)]
)


class NonceOut(NonceGrant):
    """A fresh single-use nonce and what the EIP-4361 message must say."""

    model_config = FROM_ROWS

    statement: str = "Sign in to MetaLedger."


class SignInIn(BaseModel):
    """An EIP-4361 message and its signature (EIP-191 personal_sign, or EIP-1271 for contract wallets)."""

    model_config = STRICT_INPUT
    message: str = Field(max_length=4000)
    signature: str = Field(pattern=r"^0x[0-9a-fA-F]*$", max_length=10_000)


class SessionOut(BaseModel):
    """A session: send `Authorization: Bearer <token>`."""

    model_config = FROM_ROWS

    token: str
    address: str
    expires_at: datetime
    contract_wallet: bool


class MeOut(BaseModel):
    """The signed-in address."""

    address: str


class GameOut(BaseModel):
    """A game the engine hosts."""

    name: str
    title: str
    ruleset_version: str
    catalogue_hash: str
    cards: int
    default_options: dict[str, Any]
    option_schema: dict[str, Any] = Field(
        description="JSON Schema of the match options (POST /matches checks them against it)"
    )
    starter_decks: list[dict[str, int]]


class CardOut(BaseModel):
    """A card design with its ERC-1155 token id."""

    model_config = FROM_ROWS

    game: str
    card_id: str
    index: int = Field(
        description="the card's position in the engine catalogue (observations name cards by it where they use numbers)"
    )
    name: str
    kind: str
    token_id: str
    data: dict[str, Any]
    metadata_url: str = Field(description="its ERC-1155 metadata JSON (CardToken.uri)")
    image_url: str = Field(description="its card face (SVG)")


class HoldingOut(BaseModel):
    """A card a wallet holds."""

    model_config = FROM_ROWS

    game: str
    card_id: str
    name: str
    token_id: str
    balance: int
    metadata_url: str = Field(description="its ERC-1155 metadata JSON (CardToken.uri)")
    image_url: str = Field(description="its card face (SVG)")


class CollectionOut(BaseModel):
    """A wallet's cards at a block."""

    address: str
    block_number: int
    source: Literal["indexer", "chain"] = Field(
        description="indexed balances, or read from the chain"
    )
    cards: list[HoldingOut]


class DeckIn(BaseModel):
    """A deck list for one game: card id -> copies."""

    model_config = STRICT_INPUT
    game: str = Field(max_length=32)
    cards: dict[CardId, Annotated[int, Field(ge=1, le=10_000)]] = Field(
        min_length=1, max_length=1000
    )


class ViolationOut(BaseModel):
    """A deck-building rule the deck breaks."""

    rule: str
    message: str
    card: str | None


class DeckCheckOut(BaseModel):
    """A deck checked against the game's deck-building rules only (nothing stored)."""

    game: str
    ok: bool = Field(description="no rule is broken (ownership is checked when you save)")
    cards: dict[str, int]
    deck_hash: str
    required: dict[str, int] = Field(description="the tokens the deck needs: card id -> copies")
    violations: list[ViolationOut]


class DeckOut(BaseModel):
    """A deck commitment: the deck hash, owner, and the pinned block of its ownership check."""

    model_config = FROM_ROWS

    id: str
    owner: str
    game: str
    ruleset_version: str
    deck_hash: str
    cards: dict[str, int]
    required: dict[str, int]
    block_number: int
    block_hash: str
    created_at: datetime


class MatchIn(BaseModel):
    """Create a match with your deck against an open seat or the operator's bot."""

    model_config = STRICT_INPUT
    game: str = Field(max_length=32)
    deck_id: str = Field(max_length=36)
    opponent: Literal["open", "bot"] = "open"
    bot: Literal["random", "greedy"] = "greedy"
    options: dict[Annotated[str, Field(max_length=64)], Any] = Field(
        default_factory=dict,
        max_length=16,
        description="match options, checked against the game's `option_schema` (GET /games/{game})",
    )


class JoinIn(BaseModel):
    """Take the open seat with your deck."""

    model_config = STRICT_INPUT
    deck_id: str = Field(max_length=36)


class CommitIn(BaseModel):
    """Your seed commitment keccak256(secret) of a 32-byte secret, and your seat authorization:
    your wallet's EIP-712 `SeatAuthorization` of a session key (docs/api.md, "Signed moves")."""

    model_config = STRICT_INPUT
    commit: str = Hex32
    session_key: str = AddressField
    expiry: int = Field(ge=0, le=INT64_MAX, description="unix seconds the session key is valid to")
    authorization: str = Field(
        pattern=r"^0x(?:[0-9a-fA-F]{2}){1,2048}$",
        description="the wallet's signature of the SeatAuthorization (65 bytes for an EOA; "
        "a contract wallet's EIP-1271 signature)",
    )


class RevealIn(BaseModel):
    """Your 32-byte seed secret (after every seat has committed)."""

    model_config = STRICT_INPUT
    secret: str = Hex32


class ActionIn(BaseModel):
    """A move `[kind, *args]` in your ids (one of your legal actions), signed by your session
    key as the EIP-712 `MatchAction` at index `version` after the match's `head_hash`, and the
    match version it was chosen at (optimistic concurrency)."""

    model_config = STRICT_INPUT
    action: list[ActionPart] = Field(min_length=1, max_length=64)
    salt: str = Field(
        pattern=r"^0x[0-9a-fA-F]{64}$",
        description="32 fresh random bytes, signed in the MatchAction",
    )
    signature: str = Signature65
    version: int | None = Field(
        None, ge=0, le=INT64_MAX, description="the match version you saw; 409 if it moved on"
    )
    include_view: bool = Field(False, description="also return your observation")


class ResignIn(BaseModel):
    """Resigning an active match: your session key's MatchAction `["resign"]` at index
    `version` after `head_hash` (nothing is needed to leave a match not started)."""

    model_config = STRICT_INPUT
    salt: str = Hex32
    signature: str = Signature65


class AcknowledgeIn(BaseModel):
    """Your session key's EIP-712 `MatchEnd(matchId, entries, finalEntryHash)` of a finished match."""

    model_config = STRICT_INPUT
    signature: str = Signature65


class SeatOut(BaseModel):
    """A seat of a match."""

    seat: int
    address: str
    is_bot: bool
    deck_hash: str
    deck_id: str | None
    seed_commit: str | None
    revealed: bool
    seed_secret: str | None = Field(None, description="shown once the match is over")
    session_key: str | None = Field(None, description="the session key its SeatAuthorization names")
    authorization_expiry: int | None = None
    authorization: str | None = Field(None, description="the wallet's SeatAuthorization signature")
    acknowledged: bool = Field(False, description="its session key signed the MatchEnd")


class MatchOut(BaseModel):
    """A match's public state."""

    id: str
    game: str
    ruleset_version: str
    status: str
    version: int
    current_player: int | None
    turn_deadline: datetime | None
    operator_commit: str
    operator_secret: str | None = Field(None, description="disclosed once the match is over")
    seed: str | None = Field(description="the engine seed, disclosed once the match is over")
    ownership_block: int | None
    ownership_block_hash: str | None
    ownership_rule: str = Field(
        "ownership is checked at the pinned block when the match starts; later transfers do not affect it",
        description="what the pinned block means",
    )
    winner_seat: int | None
    end_reason: str | None
    head_hash: str | None = Field(
        None, description="the last entry's hash: the prevEntryHash the next move signs"
    )
    genesis_hash: str | None = Field(None, description="prevEntryHash of entry 0")
    entries: int = Field(0, description="entries in the signed transcript (the next index)")
    forfeit_entry: dict[str, Any] | None = Field(
        None, description="the signed resignation or the operator's timeout entry"
    )
    domain: dict[str, Any] | None = Field(
        None, description="the EIP-712 domain of every signature of this match (MatchLedger's)"
    )
    receipt_signer: str | None = Field(
        None,
        description="the operator's result signer, whose MatchReceipt signatures every entry "
        "carries (check it is registered on MatchLedger: `wasSignerAt`)",
    )
    options: dict[str, Any]
    seats: list[SeatOut]
    your_seat: int | None = None
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None


class LegalActionOut(BaseModel):
    """A legal move in your ids and its label."""

    action: list[str | int | None]
    label: str


class ViewOut(BaseModel):
    """The calling player's view: their observation (hidden information hidden) and legal actions."""

    match: MatchOut
    seat: int
    your_turn: bool
    observation: dict[str, Any] | None
    legal_actions: list[LegalActionOut]


class AppliedOut(BaseModel):
    """An entry of the match as its reader may read it (the engine's projection for that
    reader), with its hash and the operator's receipt."""

    index: int
    seat: int
    by_bot: bool
    label: str
    action: list[str | int | None] | None = Field(
        description="the action in the reader's ids (null cards, or null as a whole, where "
        "the reader may not see them)"
    )
    entry_hash: str | None
    receipt: str | None = Field(description="the operator's MatchReceipt signature")


class ActionOut(BaseModel):
    """What a submission did (your action and the bot's replies) and what you may do next."""

    version: int
    status: str
    current_player: int | None
    your_turn: bool
    winner_seat: int | None
    end_reason: str | None
    head_hash: str | None = Field(description="what your next move signs as prevEntryHash")
    applied: list[AppliedOut]
    legal_actions: list[LegalActionOut]
    observation: dict[str, Any] | None = None


class ResultOut(BaseModel):
    """An operator-signed EIP-712 MatchResult."""

    match_id: str
    chain_id: int
    verifying_contract: str
    game: str
    ruleset_version: str
    player0: str
    player1: str
    deck0: str
    deck1: str
    seed_commitments: str
    transcript_hash: str
    final_state_hash: str
    winner: str
    ownership_block: int
    digest: str = Field(description="the EIP-712 digest (also the Merkle leaf value)")
    signature: str
    signer: str
    end_reason: str
    typed_data: dict[str, Any]
    batch_id: int | None
    created_at: datetime


class ComponentOut(BaseModel):
    """One part of the stack: up or down, and what was seen."""

    ok: bool
    detail: str


class ChainHealthOut(ComponentOut):
    """The chain and its head block."""

    head_block: int | None


class WorkerHealthOut(ComponentOut):
    """Workers with a recent heartbeat."""

    workers: int | None = Field(description="workers whose heartbeat is recent")
    heartbeat_age_seconds: float | None = Field(description="age of the newest heartbeat")


class AnchoringHealthOut(ComponentOut):
    """Results signed but not yet in a confirmed batch."""

    pending_results: int | None
    oldest_pending_age_seconds: float | None


class ComponentsOut(BaseModel):
    """Every component of the stack; /healthz answers 503 when one is down."""

    database: ComponentOut
    broker: ComponentOut
    chain: ChainHealthOut
    worker: WorkerHealthOut
    anchoring: AnchoringHealthOut


class HealthOut(BaseModel):
    """Health: each component (database, broker, chain, worker, anchoring backlog), the chain
    id and the contract addresses."""

    status: Literal["ok", "degraded"]
    chain_id: int
    chain_ok: bool
    block_number: int | None
    contracts: dict[str, str | None]
    database_ok: bool
    signer: str
    components: ComponentsOut


class AuditCheckOut(BaseModel):
    """One check of `metaledger verify` and its outcome."""

    name: str
    ok: bool
    detail: str


class AuditOut(BaseModel):
    """The server's run of the one verifier (`ledger.audit.verify`, as `metaledger verify`)."""

    verifier: str = Field(description="who ran which verifier")
    rpc_url: str
    ok: bool
    checks: list[AuditCheckOut]


class ReplayIn(BaseModel):
    """A transcript (`metaledger.transcript/1`) and how many of its actions to apply."""

    model_config = STRICT_INPUT
    transcript: dict[str, Any]
    step: int = Field(0, ge=0, le=1_000_000)


class ReplayActionOut(BaseModel):
    """One recorded action: its index, who made it, and what it did."""

    index: int
    seat: int | None
    label: str


class ReplayOut(BaseModel):
    """The board a spectator sees after `step` actions, and every action's label."""

    total: int
    step: int
    actions: list[ReplayActionOut]
    observation: dict[str, Any]

"""Bindings of CardExchange and of the CardToken calls trading needs, over the one transport.

Reads: spent nonces, a maker's minimum nonce, operator approvals, edition sizes, the metadata URI.
Calldata the API hands to a collector's wallet (the API never holds a collector's key): `fill`,
`cancel`, `invalidateNoncesBelow`, `setApprovalForAll`, and the publisher's `setURI`. Events the
indexer follows: OfferFilled, OfferCancelled, NoncesInvalidated (CardExchange) and ApprovalForAll
(CardToken). A dry run (`simulate`) names the custom error a transaction would revert with.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from eth_abi import decode, encode
from eth_utils import to_checksum_address

from ledger.chain.artifacts import Revert, explain_revert, load_artifact
from ledger.chain.contracts import CardToken
from ledger.chain.transport import JsonRpc, RpcError
from ledger.protocol.eip712 import Offer
from ledger.protocol.hexcodec import from_hex, to_hex

_EXCHANGE = load_artifact("CardExchange")
_TOKEN = load_artifact("CardToken")

FILL = _EXCHANGE.selector("fill")
CANCEL = _EXCHANGE.selector("cancel")
INVALIDATE_NONCES_BELOW = _EXCHANGE.selector("invalidateNoncesBelow")
IS_NONCE_USED = _EXCHANGE.selector("isNonceUsed")
MIN_NONCE = _EXCHANGE.selector("minNonce")
IS_APPROVED_FOR_ALL = _TOKEN.selector("isApprovedForAll")
SET_APPROVAL_FOR_ALL = _TOKEN.selector("setApprovalForAll")
MAX_SUPPLY = _TOKEN.selector("maxSupply")
URI = _TOKEN.selector("uri")
SET_URI = _TOKEN.selector("setURI")

OFFER_FILLED = _EXCHANGE.event_topic("OfferFilled")
OFFER_CANCELLED = _EXCHANGE.event_topic("OfferCancelled")
NONCES_INVALIDATED = _EXCHANGE.event_topic("NoncesInvalidated")
APPROVAL_FOR_ALL = _TOKEN.event_topic("ApprovalForAll")

_OFFER_TUPLE = "(address,address,uint256[],uint256[],uint256[],uint256[],uint256,uint64,uint256)"


def fill_calldata(offer: Offer, signature: bytes) -> bytes:
    """Calldata of `CardExchange.fill(offer, signature)`."""
    return FILL + encode([_OFFER_TUPLE, "bytes"], [offer.as_tuple(), signature])


def cancel_calldata(nonce: int) -> bytes:
    """Calldata of `CardExchange.cancel(nonce)`."""
    return CANCEL + encode(["uint256"], [nonce])


def invalidate_calldata(min_nonce: int) -> bytes:
    """Calldata of `CardExchange.invalidateNoncesBelow(minNonce)`."""
    return INVALIDATE_NONCES_BELOW + encode(["uint256"], [min_nonce])


def approval_calldata(operator: str, approved: bool = True) -> bytes:
    """Calldata of `CardToken.setApprovalForAll(operator, approved)`."""
    return SET_APPROVAL_FOR_ALL + encode(
        ["address", "bool"], [to_checksum_address(operator), approved]
    )


def set_uri_calldata(uri: str) -> bytes:
    """Calldata of `CardToken.setURI(uri)` (URI_SETTER_ROLE)."""
    return SET_URI + encode(["string"], [uri])


def simulate(rpc: JsonRpc, sender: str, to: str, data: bytes, value: int = 0) -> Revert | None:
    """Dry-run a transaction at the latest block: None if it would succeed, else the custom
    error it would revert with (a revert without a known error is named `Reverted`)."""
    tx = {"from": to_checksum_address(sender), "to": to_checksum_address(to), "data": to_hex(data)}
    if value:
        tx["value"] = hex(value)
    try:
        rpc.call("eth_call", tx, "latest")
    except RpcError as exc:
        raw = exc.revert_data
        if raw is None and "revert" not in exc.message.lower():
            raise
        return explain_revert(raw or b"") or Revert("Reverted", {"message": exc.message})
    return None


def _word(data: bytes) -> int:
    return int(decode(["uint256"], data)[0])


def max_supply(rpc: JsonRpc, token: str, token_id: int) -> int:
    """`CardToken.maxSupply(id)`: the edition size of `token_id` (0 if none is set)."""
    return _word(rpc.eth_call(token, MAX_SUPPLY + encode(["uint256"], [token_id])))


def token_uri(rpc: JsonRpc, token: str, token_id: int = 0) -> str:
    """`CardToken.uri(id)`: the metadata URI template (`{id}` for the client to substitute)."""
    return str(decode(["string"], rpc.eth_call(token, URI + encode(["uint256"], [token_id])))[0])


class ExchangeReads:
    """Reads of one CardExchange and its CardToken."""

    def __init__(self, rpc: JsonRpc, exchange: str, token: str) -> None:
        self.rpc = rpc
        self.exchange = to_checksum_address(exchange)
        self.token = to_checksum_address(token)

    def is_nonce_used(self, maker: str, nonce: int) -> bool:
        """Whether `maker`'s nonce is filled, cancelled or below its minimum."""
        data = IS_NONCE_USED + encode(["address", "uint256"], [to_checksum_address(maker), nonce])
        return bool(_word(self.rpc.eth_call(self.exchange, data)))

    def min_nonce(self, maker: str) -> int:
        """`maker`'s minimum valid nonce."""
        data = MIN_NONCE + encode(["address"], [to_checksum_address(maker)])
        return _word(self.rpc.eth_call(self.exchange, data))

    def is_approved(self, owner: str) -> bool:
        """Whether `owner` has approved the exchange as an operator of all its cards."""
        data = IS_APPROVED_FOR_ALL + encode(
            ["address", "address"], [to_checksum_address(owner), self.exchange]
        )
        return bool(_word(self.rpc.eth_call(self.token, data)))

    def head_timestamp(self) -> int:
        """The latest block's timestamp (what the exchange compares an expiry with)."""
        block = self.rpc.block("latest") or {}
        return int(str(block.get("timestamp", "0x0")), 16)


@dataclass(frozen=True)
class ExchangeEvent:
    """One OfferFilled / OfferCancelled / NoncesInvalidated / ApprovalForAll log."""

    kind: str  # "filled", "cancelled", "invalidated", "approval"
    block_number: int
    block_hash: str
    tx_hash: str
    log_index: int
    maker: str  # the maker (the owner, for an approval)
    offer_hash: str = ""
    taker: str = ""
    nonce: int = 0  # the spent nonce, or the new minimum for "invalidated"
    approved: bool = False
    operator: str = ""


def _address(topic: str) -> str:
    return to_checksum_address("0x" + topic[-40:])


def decode_exchange_event(log: dict[str, Any]) -> ExchangeEvent:
    """Decode one log of the four events trading follows."""
    topics = log["topics"]
    data = from_hex(log["data"], "log data")
    base: dict[str, Any] = {
        "block_number": int(log["blockNumber"], 16),
        "block_hash": str(log["blockHash"]),
        "tx_hash": str(log["transactionHash"]),
        "log_index": int(log["logIndex"], 16),
    }
    if topics[0] == OFFER_FILLED:
        return ExchangeEvent(
            "filled",
            maker=_address(topics[2]),
            offer_hash=str(topics[1]).lower(),
            taker=_address(topics[3]),
            nonce=_word(data),
            **base,
        )
    if topics[0] == OFFER_CANCELLED:
        return ExchangeEvent("cancelled", maker=_address(topics[1]), nonce=_word(data), **base)
    if topics[0] == NONCES_INVALIDATED:
        return ExchangeEvent("invalidated", maker=_address(topics[1]), nonce=_word(data), **base)
    if topics[0] == APPROVAL_FOR_ALL:
        return ExchangeEvent(
            "approval",
            maker=_address(topics[1]),
            operator=_address(topics[2]),
            approved=bool(_word(data)),
            **base,
        )
    raise ValueError(f"not an event trading follows: {topics[0]}")


def exchange_events(
    rpc: JsonRpc, exchange: str, token: str, from_block: int, to_block: int
) -> list[ExchangeEvent]:
    """The exchange's events and the token's approvals of the exchange in the block range (still
    canonical), in chain order."""
    exchange = to_checksum_address(exchange)
    found = rpc.logs(
        exchange, [[OFFER_FILLED, OFFER_CANCELLED, NONCES_INVALIDATED]], from_block, to_block
    )
    operator_topic = "0x" + "00" * 12 + exchange[2:].lower()
    found += rpc.logs(
        to_checksum_address(token), [APPROVAL_FOR_ALL, None, operator_topic], from_block, to_block
    )
    events = [decode_exchange_event(log) for log in found if not log.get("removed")]
    return sorted(events, key=lambda e: (e.block_number, e.log_index))


def balances_of(
    rpc: JsonRpc, token: str, owners: Sequence[str], token_ids: Sequence[int]
) -> list[int]:
    """`balanceOfBatch` at the latest block (one eth_call)."""
    return CardToken(rpc, token).balances(owners, token_ids)


#: why an offer can no longer be filled, as the chain says (docs/trading.md, "Statuses")
NONCE_INVALIDATED = "nonce-invalidated"
NONCE_USED = "nonce-used"
EXPIRED = "expired"
MAKER_APPROVAL = "maker-approval"
MAKER_BALANCE = "maker-balance"


def unfillable_reasons(reads: ExchangeReads, offers: Sequence[Offer]) -> list[str | None]:
    """For each offer, why the chain would refuse to fill it now (one of the reasons above,
    checked in that order), or None if its maker's side would go through. Per maker: one
    minNonce, one isApprovedForAll and one balanceOfBatch; per offer one isNonceUsed."""
    now = reads.head_timestamp()
    makers = sorted({o.maker for o in offers})
    floors = {m: reads.min_nonce(m) for m in makers}
    approved = {m: reads.is_approved(m) for m in makers}
    held: dict[tuple[str, int], int] = {}
    for maker in makers:
        ids = sorted({i for o in offers if o.maker == maker for i in o.given_ids})
        held.update(
            zip(
                ((maker, i) for i in ids),
                balances_of(reads.rpc, reads.token, [maker] * len(ids), ids),
                strict=True,
            )
        )
    reasons: list[str | None] = []
    for o in offers:
        if o.nonce < floors[o.maker]:
            reasons.append(NONCE_INVALIDATED)
        elif reads.is_nonce_used(o.maker, o.nonce):
            reasons.append(NONCE_USED)
        elif o.expiry <= now:
            reasons.append(EXPIRED)
        elif not approved[o.maker]:
            reasons.append(MAKER_APPROVAL)
        elif any(held[(o.maker, i)] < n for i, n in zip(o.given_ids, o.given_amounts, strict=True)):
            reasons.append(MAKER_BALANCE)
        else:
            reasons.append(None)
    return reasons

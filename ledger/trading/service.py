"""The offer book: a maker's signed CardExchange offer checked and stored, the book listed and
filtered, the fill and cancel transactions a collector's wallet sends, off-chain withdrawal, and
a wallet's trades. The API never holds a collector's key: it hands out calldata.

An offer is checked completely before anything is stored: its shape (amounts above 0, no id
twice, at most MAX_IDS_PER_SIDE ids a side, catalogue cards only), the EIP-712 domain it was
signed in (this chain, this exchange), the expiry against the latest block, the signature
(ECDSA, or EIP-1271 for a contract maker), the nonce (unused on-chain), the maker's cards and
the maker's approval of the exchange. The indexer (`ledger.indexing.book`) keeps the statuses.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Sequence
from dataclasses import dataclass, field, fields, is_dataclass
from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field
from sqlmodel import Session

from ledger.chain.exchange import (
    ExchangeReads,
    approval_calldata,
    balances_of,
    cancel_calldata,
    fill_calldata,
    simulate,
    unfillable_reasons,
)
from ledger.db import run_unit
from ledger.db.models import CardDesign
from ledger.db.models.trading import BookOffer, OfferFill, OfferItem, uint256_key
from ledger.errors import ConfigurationError, Conflict, InvalidInput, NotFound, OfferNotFillable
from ledger.protocol import eip712
from ledger.protocol.addresses import parse_address
from ledger.protocol.hexcodec import bytes32, from_hex, to_hex, uint256_hex
from ledger.protocol.signatures import recover_vrs
from ledger.protocol.siwe import ecdsa_parts
from ledger.protocol.tokenids import image_url, metadata_url
from ledger.runtime.context import Context
from ledger.trading import repository as repo
from ledger.trading.repository import SORTS, OfferFilter

#: the most token ids one side of an offer may list (docs/trading.md)
MAX_IDS_PER_SIDE = 16
#: the largest amount of one card an offer may name (amounts are 64-bit in the book)
MAX_AMOUNT = 2**63 - 1
#: the latest expiry an offer may carry (unix seconds; stored as a signed 64-bit integer)
MAX_EXPIRY = 2**63 - 1
STATUSES = ("open", "filled", "cancelled", "withdrawn", "expired", "unfillable")
#: statuses an offer leaves only through new evidence on-chain (a fill, a cancel)
FINAL_STATUSES = ("filled", "cancelled")
MAX_PAGE = 100
_UINT256 = 2**256


# ----------------------------------------------------------------------------- views


class CardAmount(BaseModel, frozen=True):
    """A number of copies of one card design, as an offer or a fill names it."""

    token_id: str
    amount: int
    game: str | None
    card_id: str | None
    name: str | None
    metadata_url: str
    image_url: str


class FillView(BaseModel, frozen=True):
    """An indexed fill of an offer: who, where on the chain, and both legs."""

    offer_hash: str
    maker: str
    taker: str
    nonce: str
    block_number: int
    block_hash: str
    tx_hash: str
    log_index: int
    maker_gave: Sequence[CardAmount] | None
    taker_gave: Sequence[CardAmount] | None
    wei: str | None


class OfferView(BaseModel, frozen=True):
    """An offer of the book as the API shows it."""

    offer_hash: str = Field(description="the offer's EIP-712 digest (CardExchange.offerDigest)")
    status: str = Field(description="open, filled, cancelled, withdrawn, expired or unfillable")
    status_reason: str | None
    maker: str
    taker: str | None = Field(description="null: anyone may fill it")
    given: Sequence[CardAmount]
    asked: Sequence[CardAmount]
    asked_wei: str = Field(description="wei the maker asks for, as a decimal string")
    expiry: int
    nonce: str
    signature: str
    maker_is_contract: bool
    created_at: datetime
    updated_at: datetime
    typed_data: dict[str, Any] = Field(description="the signed EIP-712 typed data")
    fill: FillView | None = None


@dataclass(frozen=True)
class Page:
    """One page of a list and the cursor of the next (None at the end)."""

    items: list[Any] = field(default_factory=list)
    next_cursor: str | None = None


# ----------------------------------------------------------------------------- parsing


def _uint(value: object, name: str, *, below: int = _UINT256, least: int = 0) -> int:
    """An unsigned integer given as a JSON integer, a decimal string or 0x-hex."""
    number: int | None = None
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, str):
        try:
            if value.startswith("0x") and 2 < len(value) <= 66:
                number = int(value, 16)
            elif value.isdigit() and len(value) <= 78 and (value == "0" or value[0] != "0"):
                number = int(value)
        except ValueError:
            number = None
    if number is None or not least <= number < below:
        raise InvalidInput(
            f"{name} must be an integer from {least} to {below - 1} "
            "(a JSON number or a decimal string)",
            field=name,
        )
    return number


def _ids_and_amounts(message: dict[str, Any], side: str) -> tuple[list[int], list[int]]:
    ids_name, amounts_name = f"offer.{side}Ids", f"offer.{side}Amounts"
    ids, amounts = message.get(f"{side}Ids"), message.get(f"{side}Amounts")
    for value, name in ((ids, ids_name), (amounts, amounts_name)):
        if not isinstance(value, list):
            raise InvalidInput(f"{name} must be a list", field=name)
        if len(value) > MAX_IDS_PER_SIDE:
            raise InvalidInput(
                f"{name} lists {len(value)} cards; at most {MAX_IDS_PER_SIDE} a side",
                field=name,
                limit=MAX_IDS_PER_SIDE,
            )
    assert isinstance(ids, list) and isinstance(amounts, list)
    if len(ids) != len(amounts):
        raise InvalidInput(f"{ids_name} and {amounts_name} differ in length", field=amounts_name)
    token_ids = [_uint(v, f"{ids_name}[{k}]") for k, v in enumerate(ids)]
    counts = [
        _uint(v, f"{amounts_name}[{k}]", least=1, below=MAX_AMOUNT + 1)
        for k, v in enumerate(amounts)
    ]
    seen: set[int] = set()
    for k, token in enumerate(token_ids):
        if token in seen:
            raise InvalidInput(f"{ids_name}[{k}] lists a card twice", field=f"{ids_name}[{k}]")
        seen.add(token)
    return token_ids, counts


def parse_offer(message: dict[str, Any]) -> eip712.Offer:
    """The Offer of an EIP-712 message dict; InvalidInput naming the first bad field."""
    maker = parse_address(message.get("maker"), "offer.maker")
    taker = parse_address(message.get("taker", eip712.ZERO_ADDRESS), "offer.taker")
    if taker == maker:
        raise InvalidInput("an offer cannot name its maker as the taker", field="offer.taker")
    given_ids, given_amounts = _ids_and_amounts(message, "given")
    asked_ids, asked_amounts = _ids_and_amounts(message, "asked")
    if not given_ids:
        raise InvalidInput("an offer gives at least one card", field="offer.givenIds")
    both = set(given_ids) & set(asked_ids)
    if both:
        k = next(k for k, i in enumerate(asked_ids) if i in both)
        raise InvalidInput(
            f"offer.askedIds[{k}] is also given: a card is on one side only",
            field=f"offer.askedIds[{k}]",
        )
    asked_wei = _uint(message.get("askedWei", "0"), "offer.askedWei")
    if not asked_ids and asked_wei == 0:
        raise InvalidInput("an offer asks for cards or wei (or both)", field="offer.askedIds")
    return eip712.Offer(
        maker=maker,
        taker=taker,
        given_ids=tuple(given_ids),
        given_amounts=tuple(given_amounts),
        asked_ids=tuple(asked_ids),
        asked_amounts=tuple(asked_amounts),
        asked_wei=asked_wei,
        expiry=_uint(message.get("expiry"), "offer.expiry", least=1, below=MAX_EXPIRY + 1),
        nonce=_uint(message.get("nonce"), "offer.nonce"),
    )


def exchange_address(ctx: Context) -> str:
    """The deployment's CardExchange (ConfigurationError when it has none)."""
    address = ctx.chain.addresses.card_exchange
    if address is None:
        raise ConfigurationError("the deployment file names no CardExchange; redeploy")
    return address


def reads(ctx: Context) -> ExchangeReads:
    """Chain reads of the deployment's exchange and card token."""
    return ExchangeReads(ctx.chain.rpc, exchange_address(ctx), ctx.chain.addresses.card_token)


def check_domain(ctx: Context, domain: dict[str, Any]) -> None:
    """Refuse a domain other than this deployment's CardExchange domain, naming the field."""
    expected = eip712.domain(eip712.OFFER_DOMAIN_NAME, ctx.chain_id, exchange_address(ctx))
    for key in ("name", "version", "chainId"):
        if domain.get(key) != expected[key]:
            raise InvalidInput(
                f"domain.{key} must be {expected[key]!r} (this deployment's CardExchange "
                "domain; see GET /exchange)",
                field=f"domain.{key}",
            )
    contract = parse_address(domain.get("verifyingContract"), "domain.verifyingContract")
    if contract != expected["verifyingContract"]:
        raise InvalidInput(
            f"domain.verifyingContract must be {expected['verifyingContract']} (this "
            "deployment's CardExchange)",
            field="domain.verifyingContract",
        )


def signer_kind(ctx: Context, address: str, digest: bytes, signature: bytes) -> str | None:
    """ "eoa" if `address`'s key made `signature` over `digest` (65 bytes, low s: what the
    exchange accepts), "contract" if contract `address` accepts it (EIP-1271), else None."""
    parts = ecdsa_parts(signature) if len(signature) == 65 else None
    if parts is not None:
        try:
            if recover_vrs(digest, *parts) == address:
                return "eoa"
        except InvalidInput:
            pass
    if ctx.chain.has_code(address) and ctx.chain.is_valid_signature_1271(
        address, digest, signature
    ):
        return "contract"
    return None


def _signature(value: object) -> bytes:
    if not isinstance(value, str):
        raise InvalidInput("signature must be 0x-hex", field="signature")
    raw = from_hex(value, "signature")
    if not raw:
        raise InvalidInput("signature is empty", field="signature")
    return raw


# ----------------------------------------------------------------------------- presenting


def _cards(
    pairs: Sequence[Sequence[Any]], designs: dict[str, CardDesign], base: str
) -> list[CardAmount]:
    out = []
    for token_hex, amount in pairs:
        design = designs.get(str(token_hex))
        value = int(str(token_hex), 16)
        out.append(
            CardAmount(
                token_id=str(token_hex),
                amount=int(amount),
                game=design.game if design else None,
                card_id=design.card_id if design else None,
                name=design.name if design else None,
                metadata_url=metadata_url(base, value),
                image_url=image_url(base, value),
            )
        )
    return out


def _fill_view(fill: OfferFill, designs: dict[str, CardDesign], base: str) -> FillView:
    return FillView(
        offer_hash=fill.offer_hash,
        maker=fill.maker,
        taker=fill.taker,
        nonce=str(int(fill.nonce)),
        block_number=fill.block_number,
        block_hash=fill.block_hash,
        tx_hash=fill.tx_hash,
        log_index=fill.log_index,
        maker_gave=None if fill.maker_gave is None else _cards(fill.maker_gave, designs, base),
        taker_gave=None if fill.taker_gave is None else _cards(fill.taker_gave, designs, base),
        wei=None if fill.wei is None else str(int(fill.wei)),
    )


def _domain(cache: dict[tuple[int, str], dict[str, Any]], row: BookOffer) -> dict[str, Any]:
    key = (row.chain_id, row.exchange)
    if key not in cache:
        cache[key] = eip712.domain(eip712.OFFER_DOMAIN_NAME, row.chain_id, row.exchange)
    return cache[key]


def plain(value: Any) -> Any:
    """Views as JSON-able dicts and lists (datetimes in ISO 8601), for answers sent as they are."""
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, BaseModel):
        return {name: plain(getattr(value, name)) for name in type(value).model_fields}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, datetime):
        return value.isoformat()
    return value


def present(db: Session, ctx: Context, rows: Sequence[BookOffer]) -> list[OfferView]:
    """The API's view of stored offers (card names and links joined in one query)."""
    base = ctx.settings.resolved_public_base_url
    designs = repo.designs_by_token(db, [str(t) for r in rows for t, _ in (*r.given, *r.asked)])
    domains: dict[tuple[int, str], dict[str, Any]] = {}
    views = []
    for row in rows:
        fill = repo.fill_of(db, row.offer_hash) if row.status == "filled" else None
        views.append(
            OfferView(
                offer_hash=row.offer_hash,
                status=row.status,
                status_reason=row.status_reason,
                maker=row.maker,
                taker=None if row.taker == eip712.ZERO_ADDRESS else row.taker,
                given=_cards(row.given, designs, base),
                asked=_cards(row.asked, designs, base),
                asked_wei=str(int(row.asked_wei)),
                expiry=int(row.expiry),
                nonce=str(int(row.nonce)),
                signature=row.signature,
                maker_is_contract=row.maker_is_contract,
                created_at=row.created_at,
                updated_at=row.updated_at,
                typed_data=eip712.typed_data_of(
                    "Offer", eip712.OFFER_FIELDS, _domain(domains, row), row.message()
                ),
                fill=None if fill is None else _fill_view(fill, designs, base),
            )
        )
    return views


# ----------------------------------------------------------------------------- the book


def exchange_info(ctx: Context) -> dict[str, Any]:
    """What a wallet needs to build and sign offers here: the domain, the types, the limits."""
    exchange = exchange_address(ctx)
    return {
        "chain_id": ctx.chain_id,
        "exchange": exchange,
        "card_token": ctx.chain.addresses.card_token,
        "domain": eip712.domain(eip712.OFFER_DOMAIN_NAME, ctx.chain_id, exchange),
        "types": {
            "EIP712Domain": eip712.DOMAIN_FIELDS,
            "Offer": eip712.OFFER_FIELDS,
            "OfferWithdrawal": eip712.OFFER_WITHDRAWAL_FIELDS,
        },
        "max_ids_per_side": MAX_IDS_PER_SIDE,
        "statuses": list(STATUSES),
        "approval_transaction": _tx(ctx.chain.addresses.card_token, approval_calldata(exchange)),
    }


def _tx(to: str, data: bytes, value: int = 0, sender: str | None = None) -> dict[str, Any]:
    tx: dict[str, Any] = {"to": to, "data": to_hex(data), "value": str(value)}
    if sender is not None:
        tx = {"from": sender, **tx}
    return tx


def submit_offer(
    ctx: Context, domain: dict[str, Any], message: dict[str, Any], signature: str
) -> tuple[OfferView, bool]:
    """Check a signed offer and store it as open; (its view, whether it is new). The same
    offer posted again answers the stored one. Nothing is stored when a check fails."""
    check_domain(ctx, domain)
    offer = parse_offer(message)
    raw_signature = _signature(signature)
    exchange = exchange_address(ctx)
    offer_hash = to_hex(eip712.offer_digest(offer, ctx.chain_id, exchange))

    def known(db: Session) -> tuple[list[OfferView], dict[str, CardDesign]]:
        row = repo.offer_by_hash(db, offer_hash)
        hexes = [uint256_hex(i) for i in (*offer.given_ids, *offer.asked_ids)]
        return present(db, ctx, [row]) if row else [], repo.designs_by_token(db, hexes)

    existing, designs = run_unit(ctx.db, known, write=False)
    if existing:
        return existing[0], False
    for side, ids in (("given", offer.given_ids), ("asked", offer.asked_ids)):
        for k, token in enumerate(ids):
            if uint256_hex(token) not in designs:
                raise InvalidInput(
                    f"offer.{side}Ids[{k}] is no card of the catalogue",
                    field=f"offer.{side}Ids[{k}]",
                )
    chain = reads(ctx)
    if offer.expiry <= chain.head_timestamp():
        raise InvalidInput(
            "offer.expiry is in the past (by the latest block)", field="offer.expiry"
        )
    digest = bytes32(offer_hash)
    kind = signer_kind(ctx, offer.maker, digest, raw_signature)
    if kind is None:
        raise InvalidInput(
            "the signature is not the maker's signature of this offer in this domain (another "
            "signer, other fields, another chain or another exchange)",
            field="signature",
        )
    _refuse_unfillable(ctx, chain, offer)
    game_of = {d.token_id: d.game for d in designs.values()}

    def store(db: Session) -> list[OfferView]:
        row = BookOffer(
            offer_hash=offer_hash,
            chain_id=ctx.chain_id,
            exchange=exchange,
            maker=offer.maker,
            taker=offer.taker,
            asked_wei=uint256_key(offer.asked_wei),
            expiry=offer.expiry,
            nonce=uint256_key(offer.nonce),
            signature=to_hex(raw_signature),
            maker_is_contract=kind == "contract",
            given=[
                [uint256_hex(i), n]
                for i, n in zip(offer.given_ids, offer.given_amounts, strict=True)
            ],
            asked=[
                [uint256_hex(i), n]
                for i, n in zip(offer.asked_ids, offer.asked_amounts, strict=True)
            ],
            status="open",
        )
        items = [
            OfferItem(offer_id=0, side=side, token_id=t, amount=int(n), game=game_of[t])
            for side, pairs in (("given", row.given), ("asked", row.asked))
            for t, n in pairs
        ]
        repo.add_offer(db, row, items)
        return present(db, ctx, [row])

    try:
        return run_unit(ctx.db, store)[0], True
    except Conflict:  # the same offer, posted twice at the same moment
        again = run_unit(ctx.db, known, write=False)[0]
        if not again:
            raise
        return again[0], False


def _refuse_unfillable(ctx: Context, chain: ExchangeReads, offer: eip712.Offer) -> None:
    (reason,) = unfillable_reasons(chain, [offer])
    if reason is None:
        return
    token = ctx.chain.addresses.card_token
    if reason in ("nonce-used", "nonce-invalidated"):
        raise OfferNotFillable(
            f"nonce {offer.nonce} of {offer.maker} is already used or cancelled on-chain; "
            "pick another (GET /wallets/{address}/offer-nonce)",
            field="offer.nonce",
            reason=reason,
        )
    if reason == "expired":
        raise InvalidInput(
            "offer.expiry is in the past (by the latest block)", field="offer.expiry"
        )
    if reason == "maker-approval":
        raise OfferNotFillable(
            f"{offer.maker} has not approved the exchange {chain.exchange} to move its cards: "
            "send approval_transaction (CardToken.setApprovalForAll(exchange, true)) first",
            field="offer.maker",
            reason=reason,
            approval_transaction=_tx(token, approval_calldata(chain.exchange), sender=offer.maker),
        )
    held = chain_balances(chain, offer.maker, offer.given_ids)
    k = next(k for k, n in enumerate(offer.given_amounts) if held[k] < n)
    raise OfferNotFillable(
        f"{offer.maker} holds {held[k]} of offer.givenIds[{k}], the offer gives "
        f"{offer.given_amounts[k]}",
        field=f"offer.givenAmounts[{k}]",
        reason=reason,
    )


def chain_balances(chain: ExchangeReads, owner: str, ids: Sequence[int]) -> list[int]:
    """`owner`'s balances of `ids` at the latest block."""
    return balances_of(chain.rpc, chain.token, [owner] * len(ids), list(ids))


def get_offer(db: Session, ctx: Context, offer_hash: str) -> OfferView:
    """One offer by hash (NotFound if the book does not hold it)."""
    key = to_hex(bytes32(offer_hash, "offer_hash"))
    row = repo.offer_by_hash(db, key)
    if row is None:
        raise NotFound(f"the book holds no offer {key}")
    return present(db, ctx, [row])[0]


def _encode_cursor(parts: Sequence[object]) -> str:
    return base64.urlsafe_b64encode(":".join(str(p) for p in parts).encode()).decode()


def _decode_cursor(cursor: str, arity: int) -> list[str]:
    try:
        parts = base64.urlsafe_b64decode(cursor.encode()).decode().split(":")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        parts = []
    if len(parts) != arity or not all(p.isdigit() for p in parts):
        raise InvalidInput("cursor is not a cursor this list handed out", field="cursor")
    return parts


def list_offers(
    db: Session,
    ctx: Context,
    f: OfferFilter,
    sort: str = "newest",
    cursor: str | None = None,
    limit: int = 20,
) -> Page:
    """One page of the book; `cursor` is the `next_cursor` of the page before."""
    if sort not in SORTS:
        raise InvalidInput(f"sort must be one of {', '.join(SORTS)}", field="sort")
    if f.side is not None and f.card is None:
        raise InvalidInput("side needs card (the card sold or asked for)", field="side")
    priced = sort.startswith("price")
    after: tuple[str, int] | None = None
    if cursor is not None:
        parts = _decode_cursor(cursor, 2 if priced else 1)
        after = (uint256_key(int(parts[0])), int(parts[1])) if priced else ("", int(parts[0]))
    rows = repo.list_offers(db, f, sort, after, min(max(limit, 1), MAX_PAGE))
    next_cursor = None
    if len(rows) == min(max(limit, 1), MAX_PAGE) and rows:
        last = rows[-1]
        assert last.id is not None
        next_cursor = _encode_cursor((int(last.asked_wei), last.id) if priced else (last.id,))
    return Page(present(db, ctx, rows), next_cursor)


def offer_filter(
    *,
    status: str | None,
    game: str | None,
    card: str | None,
    side: str | None,
    maker: str | None,
    taker: str | None,
) -> OfferFilter:
    """The book's filter from query parameters ("any" status: every status)."""
    if status is not None and status != "any" and status not in STATUSES:
        raise InvalidInput(f"status must be any or one of {', '.join(STATUSES)}", field="status")
    sides = {"selling": "given", "asking": "asked", None: None}
    if side not in sides:
        raise InvalidInput("side must be selling or asking", field="side")
    return OfferFilter(
        status=None if status == "any" else status,
        game=game,
        card=None if card is None else uint256_hex(_uint(card, "card")),
        side=sides[side],
        maker=None if maker is None else parse_address(maker, "maker"),
        taker=None if taker is None else parse_address(taker, "taker"),
    )


def _require_open(view: OfferView) -> None:
    if view.status not in ("open", "unfillable"):
        raise OfferNotFillable(
            f"the offer is {view.status}"
            + (f" ({view.status_reason})" if view.status_reason else ""),
            field="offer_hash",
            reason=view.status,
        )


def fill_transaction(ctx: Context, offer_hash: str, taker: str) -> dict[str, Any]:
    """The transaction `taker` sends to fill an offer (to, data, value), what each side gives
    and gets, the taker's approval if one is needed, and a dry run of the fill that names the
    error it would revert with."""
    who = parse_address(taker, "taker")
    view = run_unit(ctx.db, lambda db: get_offer(db, ctx, offer_hash), write=False)
    _require_open(view)
    row_offer = eip712.Offer.from_message(view.typed_data["message"])
    chain = reads(ctx)
    exchange = chain.exchange
    data = fill_calldata(row_offer, from_hex(view.signature, "signature"))
    needs_approval = bool(view.asked) and not chain.is_approved(who)
    failure = simulate(ctx.chain.rpc, who, exchange, data, row_offer.asked_wei)
    return {
        "offer_hash": view.offer_hash,
        "status": view.status,
        "chain_id": ctx.chain_id,
        "transaction": _tx(exchange, data, row_offer.asked_wei, sender=who),
        "taker_gives": {"cards": view.asked, "wei": view.asked_wei},
        "taker_gets": {"cards": view.given, "wei": "0"},
        "maker_gives": {"cards": view.given, "wei": "0"},
        "maker_gets": {"cards": view.asked, "wei": view.asked_wei},
        "approval": {
            "needed": needs_approval,
            "transaction": _tx(chain.token, approval_calldata(exchange), sender=who)
            if needs_approval
            else None,
        },
        "simulation": {
            "ok": failure is None,
            "error": None if failure is None else failure.as_dict(),
        },
    }


def cancel_transaction(ctx: Context, offer_hash: str) -> dict[str, Any]:
    """The transaction the maker sends to cancel an offer on-chain (`cancel(nonce)`): the only
    way to stop a signed offer that someone else holds from being filled."""
    view = run_unit(ctx.db, lambda db: get_offer(db, ctx, offer_hash), write=False)
    if view.status in FINAL_STATUSES:
        raise OfferNotFillable(
            f"the offer is already {view.status}", field="offer_hash", reason=view.status
        )
    return {
        "offer_hash": view.offer_hash,
        "chain_id": ctx.chain_id,
        "transaction": _tx(
            exchange_address(ctx), cancel_calldata(int(view.nonce)), sender=view.maker
        ),
    }


def withdraw_offer(ctx: Context, offer_hash: str, signature: str) -> OfferView:
    """Take an offer off the book with the maker's signature of `OfferWithdrawal(offerHash)`.
    The signed offer stays valid on-chain: the answer carries the cancel transaction."""
    view = run_unit(ctx.db, lambda db: get_offer(db, ctx, offer_hash), write=False)
    withdrawal = eip712.OfferWithdrawal(bytes32(view.offer_hash))
    digest = eip712.digest(withdrawal, ctx.chain_id, exchange_address(ctx))
    if signer_kind(ctx, view.maker, digest, _signature(signature)) is None:
        raise InvalidInput(
            "the signature is not the maker's signature of OfferWithdrawal(offerHash) in this "
            "exchange's domain",
            field="signature",
        )
    if view.status in FINAL_STATUSES:
        raise OfferNotFillable(
            f"the offer is already {view.status}", field="offer_hash", reason=view.status
        )

    def withdraw(db: Session) -> OfferView:
        row = repo.offer_by_hash(db, view.offer_hash)
        assert row is not None
        if row.status in FINAL_STATUSES:
            raise OfferNotFillable(
                f"the offer is already {row.status}", field="offer_hash", reason=row.status
            )
        repo.set_status(db, row, "withdrawn", "withdrawn-by-maker")
        return present(db, ctx, [row])[0]

    return run_unit(ctx.db, withdraw)


def trades(
    db: Session, ctx: Context, address: str, cursor: str | None = None, limit: int = 20
) -> Page:
    """A wallet's fills as maker or taker, newest first, with block, transaction and both legs."""
    owner = parse_address(address, "address")
    after = None
    if cursor is not None:
        block, log_index = _decode_cursor(cursor, 2)
        after = (int(block), int(log_index))
    size = min(max(limit, 1), MAX_PAGE)
    fills = repo.fills_of_wallet(db, owner, after, size)
    base = ctx.settings.resolved_public_base_url
    designs = repo.designs_by_token(
        db, [str(t) for f in fills for t, _ in (*(f.maker_gave or []), *(f.taker_gave or []))]
    )
    next_cursor = (
        _encode_cursor((fills[-1].block_number, fills[-1].log_index))
        if len(fills) == size
        else None
    )
    return Page([_fill_view(f, designs, base) for f in fills], next_cursor)


def next_nonce(db: Session, ctx: Context, address: str) -> dict[str, Any]:
    """A nonce for `address`'s next offer: above every nonce of its offers in the book and at
    least its on-chain minimum, and unused on-chain."""
    maker = parse_address(address, "address")
    chain = reads(ctx)
    floor = chain.min_nonce(maker)
    highest = repo.highest_nonce(db, maker)
    nonce = max(floor, 0 if highest is None else highest + 1)
    while chain.is_nonce_used(maker, nonce):
        nonce += 1
    return {"maker": maker, "min_nonce": str(floor), "next_nonce": str(nonce)}

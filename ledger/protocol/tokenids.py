"""ERC-1155 token ids of catalogue cards: `uint256(keccak256(bytes(game + ":" + card_id)))`.

The same function is `CardToken.tokenId(game, cardId)` on-chain (tests check they agree).
"""

from __future__ import annotations

from functools import lru_cache

from eth_hash.auto import keccak

from ledger.protocol.hexcodec import uint256_hex


@lru_cache(maxsize=16384)
def token_id(game: str, card_id: str) -> int:
    """The token id of card `card_id` of `game`, e.g. token_id("metax", "U92-JL")."""
    if ":" in game:
        raise ValueError(f"game name {game!r} must not contain ':'")
    return int.from_bytes(keccak(f"{game}:{card_id}".encode()), "big")


def token_id_hex(game: str, card_id: str) -> str:
    """The token id as a 0x-prefixed 64-digit hex string."""
    return uint256_hex(token_id(game, card_id))

"""ERC-1155 token ids of catalogue cards: `uint256(keccak256(bytes(game + ":" + card_id)))`.

The same function is `CardToken.tokenId(game, cardId)` on-chain (tests check they agree).
"""

from __future__ import annotations

from eth_hash.auto import keccak

from ledger.protocol.hexcodec import uint256_hex


def token_id(game: str, card_id: str) -> int:
    """The token id of card `card_id` of `game`, e.g. token_id("metax", "U92-JL")."""
    if ":" in game:
        raise ValueError(f"game name {game!r} must not contain ':'")
    return int.from_bytes(keccak(f"{game}:{card_id}".encode()), "big")


def token_id_hex(game: str, card_id: str) -> str:
    """The token id as a 0x-prefixed 64-digit hex string."""
    return uint256_hex(token_id(game, card_id))


#: where the API serves a card's ERC-1155 metadata JSON; `{id}` is `metadata_id(token id)`
METADATA_PATH = "/cards/{id}.json"
#: ... and its card face (SVG)
IMAGE_PATH = "/cards/{id}.svg"


def metadata_id(value: int) -> str:
    """A token id in the ERC-1155 metadata `{id}` form: 64 lowercase hex digits, no 0x."""
    return format(value, "064x")


def metadata_uri_template(base_url: str) -> str:
    """The `uri()` template of CardToken for an API reached at `base_url`."""
    return base_url.rstrip("/") + METADATA_PATH


def metadata_url(base_url: str, value: int) -> str:
    """The metadata URL of one token id (the template with `{id}` substituted)."""
    return metadata_uri_template(base_url).replace("{id}", metadata_id(value))


def image_url(base_url: str, value: int) -> str:
    """The card face URL of one token id."""
    return base_url.rstrip("/") + IMAGE_PATH.replace("{id}", metadata_id(value))

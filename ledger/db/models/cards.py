"""Card designs: the catalogue entries of every game, with their ERC-1155 token ids."""

from __future__ import annotations

from typing import Any

from sqlalchemy import JSON, Column, UniqueConstraint
from sqlmodel import Field, SQLModel


class CardDesign(SQLModel, table=True):
    """One catalogue entry; `token_id` is the uint256 as 0x-prefixed 64-digit hex."""

    __tablename__ = "card_designs"
    __table_args__ = (UniqueConstraint("game", "card_id", name="uq_card_designs_game_card"),)

    token_id: str = Field(primary_key=True, max_length=66)
    game: str = Field(index=True, max_length=32)
    card_id: str = Field(max_length=64)
    name: str = Field(max_length=200)
    kind: str = Field(max_length=64)
    catalogue_hash: str = Field(max_length=64)
    data: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))

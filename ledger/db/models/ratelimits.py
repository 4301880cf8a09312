"""Request counts per client address and time window, shared by every API process."""

from __future__ import annotations

from sqlmodel import Field, SQLModel


class RateLimitWindow(SQLModel, table=True):
    """How many requests one key (bucket and client address) made in one fixed window."""

    __tablename__ = "rate_limit_windows"

    key: str = Field(primary_key=True, max_length=128)
    #: the window's start in Unix seconds (a multiple of the window length)
    window_start: int = Field(primary_key=True, index=True)
    hits: int = Field(default=0)

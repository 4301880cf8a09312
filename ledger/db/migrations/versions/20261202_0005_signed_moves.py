"""Signed moves: the hash chain of a match, seats' session keys, each action's signature and receipt."""

from ledger.db.migrations import ddl

revision = "0005"
down_revision = "0004"

upgrade, downgrade = ddl.add_columns(
    {
        "matches": (
            ddl.string("genesis_hash", 66, nullable=True),
            ddl.string("head_hash", 66, nullable=True),
            ddl.json("forfeit_entry", nullable=True),
        ),
        "match_seats": (
            ddl.string("session_key", 42, nullable=True),
            ddl.big_integer("authorization_expiry", nullable=True),
            ddl.text("authorization", nullable=True),
            ddl.string("end_acknowledgement", 132, nullable=True),
        ),
        "match_actions": (
            ddl.text("move", server_default=""),
            ddl.string("salt", 66, nullable=True),
            ddl.string("signature", 132, nullable=True),
            ddl.string("entry_hash", 66, nullable=True),
            ddl.string("receipt", 132, nullable=True),
            ddl.json("views", nullable=True),
        ),
    }
)

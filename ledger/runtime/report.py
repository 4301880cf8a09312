"""The reports of a pass (what one run of a loop did), as the JSON they are logged and printed as."""

from __future__ import annotations

from typing import Any


class PassSummary:
    """A dataclass of counts and lists whose JSON form is its fields as they are."""

    def as_dict(self) -> dict[str, Any]:
        """JSON-able summary."""
        return dict(self.__dict__)

"""A batch's leaf list read from an operator's API (`GET /batches/{id}`), for bundles that do not
embed it: read with the bundle limits, shape-checked, and then verified like an embedded one."""

from __future__ import annotations

from typing import Any

import httpx
from pydantic import TypeAdapter, ValidationError

from ledger.errors import InvalidInput, ServiceUnavailable
from ledger.protocol import untrusted
from ledger.protocol.bundle import Leaf


def fetch_leaves(api: str, batch_id: int, limits: untrusted.JsonLimits) -> list[dict[str, Any]]:
    """The `leaves` of `GET {api}/batches/{batch_id}`; ServiceUnavailable when the API does not
    answer, InvalidInput when the answer is not a leaf list."""
    url = f"{api.rstrip('/')}/batches/{batch_id}"
    try:
        response = httpx.get(url, timeout=30)
    except httpx.HTTPError as exc:
        raise ServiceUnavailable(f"{url} does not answer: {exc}") from None
    if response.status_code != 200:
        raise InvalidInput(f"{url} answered HTTP {response.status_code}")
    listing = untrusted.parse(response.content[: limits.max_bytes + 1], limits, what=url)
    leaves = listing.get("leaves") if isinstance(listing, dict) else None
    try:
        TypeAdapter(list[Leaf]).validate_python(leaves)
    except ValidationError as exc:
        raise InvalidInput(f"{url}: not a leaf list ({exc.error_count()} problems)") from None
    assert isinstance(leaves, list)
    return leaves

"""The fuzz benchmark's tally: requests, transport and server errors all read from the counts
by status, and the first server errors kept as samples."""

from __future__ import annotations

from ledger.bench.fuzz import Tally


def test_the_counts_are_read_from_the_statuses() -> None:
    tally = Tally()
    for status in (200, 422, None, 500, 503, 200, None):
        tally.record("GET /x", status, b"boom")
    assert tally.requests == 7
    assert tally.transport_errors == 2
    assert tally.server_errors == 2
    assert tally.statuses == {"200": 2, "422": 1, "None": 2, "500": 1, "503": 1}
    assert tally.samples == ["GET /x: 500 b'boom'", "GET /x: 503 b'boom'"]


def test_at_most_ten_samples_are_kept() -> None:
    tally = Tally()
    for _ in range(12):
        tally.record("POST /y", 502)
    assert tally.server_errors == 12 and len(tally.samples) == 10

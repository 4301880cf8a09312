"""The hostile corpus (ledger.bench.hostile, which `metaledger bench fuzz` sends in full) on a
sample of every endpoint, signed in and not: no 5xx, every refusal problem+json, and the
server still answers. The full corpus and its figures: docs/benchmarks.md."""

from __future__ import annotations

from collections import Counter

import httpx
import pytest

from api.app import create_app
from ledger.bench import hostile
from tests.api.conftest import PLAYER_KEYS, LiveServer
from tests.api.helpers import sign_in

pytestmark = pytest.mark.chain

#: every request's name; the test sends every SAMPLE-th one (the bench sends all)
SAMPLE = 9
CORPUS = hostile.endpoint_requests(create_app().openapi())


def _sample() -> list[hostile.Request]:
    always = [r for r in CORPUS if not r.name.startswith(("GET ", "POST "))]  # header cases
    raw_sign_in = [r for r in CORPUS if r.name.startswith("POST /auth/verify body ")]
    return always + raw_sign_in + CORPUS[::SAMPLE]


def test_the_corpus_covers_every_endpoint_and_every_kind_of_hostile_value() -> None:
    operations = {
        f"{m.upper()} {p}" for p, ops in create_app().openapi()["paths"].items() for m in ops
    }
    covered = {" ".join(r.name.split()[:2]) for r in CORPUS}
    assert operations <= covered
    names = " ".join(r.name for r in CORPUS)
    for kind in (
        "deep-array",
        "declared-10MB",
        "lone-surrogate",
        "nan",
        "int64-max+1",
        "int64-min-1",
        "negative",
        "zero",
        "zero-width",
        "rtl-override",
        "nul",
    ):
        assert kind in names, kind


@pytest.mark.parametrize("signed_in", [False, True])
def test_a_sample_of_the_corpus_gets_no_server_error(
    healthy_api: LiveServer, healthy_client: httpx.Client, signed_in: bool
) -> None:
    live_api, client = healthy_api, healthy_client
    assert client.get("/healthz").status_code == 200
    auth = sign_in(client, PLAYER_KEYS[0]).headers if signed_in else {}
    failures = []
    statuses: Counter[int | None] = Counter()
    for request in _sample():
        answer = hostile.send(client, live_api.url, request, {"Host": "testserver", **auth})
        statuses[answer.status] += 1
        if answer.status is None:
            assert client.get("/games").status_code == 200, f"the API died at {request.name}"
            continue
        if answer.status >= 500 or (
            answer.status >= 400 and not answer.content_type.startswith("application/problem+json")
        ):
            failures.append((request.name, answer.status, answer.body[:200]))
    assert not failures, failures
    assert client.get("/games").status_code == 200
    # the corpus reached every layer: the protocol (431), the limits (413, 422) and the routes
    assert {404, 413, 422, 431} <= set(statuses), statuses
    assert signed_in or 401 in statuses, statuses

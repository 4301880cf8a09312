"""The API's chain client: hand-made calldata equals eth_abi's; pinned reads; stale deployments."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from eth_abi import decode, encode
from hypothesis import given
from hypothesis import strategies as st

from ledger.chain.client import ChainClient
from ledger.chain.contracts import BALANCE_OF_BATCH, decode_uint256_array, encode_balance_of_batch
from ledger.chain.deployment import Deployment, load_addresses
from ledger.devstack.anvil import AnvilNode
from ledger.errors import ConfigurationError

addresses = st.binary(min_size=20, max_size=20).map(lambda b: "0x" + b.hex())
uints = st.integers(min_value=0, max_value=2**256 - 1)


@given(st.lists(st.tuples(addresses, uints), max_size=50))
def test_calldata_matches_eth_abi(pairs: list[tuple[str, int]]) -> None:
    owners = [p[0] for p in pairs]
    ids = [p[1] for p in pairs]
    expected = BALANCE_OF_BATCH + encode(["address[]", "uint256[]"], [owners, ids])
    assert encode_balance_of_batch(owners, ids) == expected


@given(st.lists(uints, max_size=50))
def test_decoding_matches_eth_abi(values: list[int]) -> None:
    data = encode(["uint256[]"], [values])
    assert decode_uint256_array(data) == list(decode(["uint256[]"], data)[0])


def test_missing_and_stale_deployment_files(
    tmp_path: Path, anvil: AnvilNode, deployment: Deployment
) -> None:
    with pytest.raises(ConfigurationError, match="no deployment file"):
        load_addresses(tmp_path / "missing.json")
    data = json.loads(deployment.to_json())
    data["addresses"]["CardToken"] = "0x" + "11" * 20
    stale = tmp_path / "stale.json"
    stale.write_text(json.dumps(data))
    client = ChainClient(anvil.rpc_url, load_addresses(stale))
    with pytest.raises(ConfigurationError, match="stale"):
        client.check_deployment()
    client.close()
    data["chain_id"] = 1
    stale.write_text(json.dumps(data))
    client = ChainClient(anvil.rpc_url, load_addresses(stale))
    with pytest.raises(ConfigurationError, match="chain id 1"):
        client.check_deployment()
    client.close()


def _saved_client(
    anvil: AnvilNode, deployment: Deployment, tmp_path: Path, head_ttl: float
) -> ChainClient:
    """A client on `anvil` reading the deployment from a saved file, as a process would."""
    path = tmp_path / "d.json"
    deployment.save(path)
    return ChainClient(anvil.rpc_url, load_addresses(path), head_ttl=head_ttl)


def test_pinned_reads_see_the_pinned_block(
    evm_snapshot: AnvilNode, deployment: Deployment, tmp_path: Path
) -> None:
    from tests.api.conftest import mint

    client = _saved_client(evm_snapshot, deployment, tmp_path, head_ttl=0)
    owner = "0x" + "ab" * 20
    before = client.head(fresh=True)
    mint(evm_snapshot, deployment, {owner: {("metax", "U92-JL"): 2}})
    from ledger.protocol.tokenids import token_id

    after = client.head(fresh=True)
    tid = token_id("metax", "U92-JL")
    assert client.balances([owner], [tid], before) == [0]
    assert client.balances([owner], [tid], after) == [2]
    assert after.number > before.number
    client.close()


def test_a_transfer_range_and_the_head_are_read_once_per_ttl(
    evm_snapshot: AnvilNode, deployment: Deployment, tmp_path: Path
) -> None:
    from tests.api.conftest import mint

    client = _saved_client(evm_snapshot, deployment, tmp_path, head_ttl=2.0)
    assert client.cached_head() is None  # nothing read yet: the caller reads it
    start = client.head()
    assert client.cached_head() == start
    mint(evm_snapshot, deployment, {"0x" + "cd" * 20: {("metax", "U92-JL"): 1}})
    reads: list[tuple[int, int]] = []
    original = client.token.transfers

    def counted(a: int, b: int) -> list[dict[str, object]]:
        reads.append((a, b))
        return original(a, b)

    client.token.transfers = counted  # type: ignore[method-assign]
    end = client.head(fresh=True).number
    first = client.transfers(start.number + 1, end)
    assert client.transfers(start.number + 1, end) == first and len(reads) == 1
    assert first  # the mint's transfer
    time.sleep(2.1)  # past the TTL: read again, and the head is no longer trusted
    client.transfers(start.number + 1, end)
    assert len(reads) == 2
    assert client.cached_head() is None
    client.head()
    time.sleep(1.1)  # past half the TTL: still the cached pin, the next one read meanwhile
    pinned = client.cached_head()
    assert pinned is not None
    deadline = time.monotonic() + 5
    while client._refreshing and time.monotonic() < deadline:
        time.sleep(0.01)
    assert client.cached_head() is not None and not client._refreshing
    client.head_ttl = 0.02  # many refreshes: one refresher thread, so one connection for them
    for _ in range(40):
        client.cached_head() or client.head()
        time.sleep(0.015)
    assert len(client.rpc._connections) <= 2, len(client.rpc._connections)
    refresher = client._refresher
    client.close()
    assert refresher is not None
    refresher.join(timeout=5)
    assert not refresher.is_alive()

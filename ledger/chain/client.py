"""The API's chain reads over the one transport: the deployment checked against the node, the
head block as the pin of ownership checks (reused for `head_ttl` seconds), pinned
`balanceOfBatch` reads, transfer logs, block hashes, and EIP-1271 checks of contract wallets."""

from __future__ import annotations

import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from eth_utils import to_checksum_address

from ledger.chain.coalesce import BalanceCoalescer
from ledger.chain.contracts import CardToken, eip1271_accepts
from ledger.chain.deployment import ContractAddresses, load_addresses
from ledger.chain.transport import BlockRef, JsonRpc, check_may_wait
from ledger.errors import ConfigurationError

#: how many recent block ranges' transfer logs the client keeps (each for `head_ttl` seconds)
TRANSFER_RANGES_KEPT = 16

if TYPE_CHECKING:
    from ledger.settings import Settings


def _refresh_heads(client_ref: weakref.ref[ChainClient], wake: threading.Event) -> None:
    """The head refresher of one client: read the next head each time it is woken, until the
    client is closed or gone."""
    while True:
        wake.wait()
        wake.clear()
        client = client_ref()
        if client is None or client._closed:
            return
        try:
            client.head(fresh=True)
        except Exception:  # the next request that needs the head reads it itself
            pass
        finally:
            client._refreshing = False
        del client


class ChainClient:
    """Chain reads for the API. Thread-safe; one keep-alive connection per thread."""

    def __init__(self, rpc_url: str, addresses: ContractAddresses, head_ttl: float = 1.0) -> None:
        self.rpc = JsonRpc(rpc_url)
        self.addresses = addresses
        self.head_ttl = head_ttl
        self.token = CardToken(self.rpc, addresses.card_token)
        self._reads = BalanceCoalescer(self.token.balances)
        self._head: tuple[float, BlockRef] | None = None
        self._head_lock = threading.Lock()
        self._refreshing = False
        self._closed = False
        self._wake = threading.Event()
        self._refresher: threading.Thread | None = None
        self._code: dict[str, bool] = {}
        #: (from, to) -> (when read, rows): the transfer logs of a block range, for `head_ttl`
        self._transfers: OrderedDict[tuple[int, int], tuple[float, list[dict[str, Any]]]] = (
            OrderedDict()
        )
        self._transfers_lock = threading.Lock()

    @property
    def rpc_url(self) -> str:
        """The node's JSON-RPC URL."""
        return self.rpc.url

    @classmethod
    def from_settings(cls, settings: Settings | None = None) -> ChainClient:
        """A client for the settings' RPC URL and deployment file, checked against the node."""
        if settings is None:
            from ledger.settings import get_settings

            settings = get_settings()
        client = cls(
            settings.rpc_url,
            load_addresses(settings.resolved_deployment_file),
            head_ttl=settings.chain_head_ttl_seconds,
        )
        client.check_deployment()
        return client

    def close(self) -> None:
        """Close every connection this client opened (in any thread)."""
        self._closed = True
        self._wake.set()  # the head refresher ends
        self.rpc.close()

    def chain_id(self) -> int:
        """The node's chain id."""
        return self.rpc.chain_id()

    def cached_head(self) -> BlockRef | None:
        """The head block if it was read less than `head_ttl` seconds ago (no I/O), else None.
        Past half its TTL, one background thread reads the next head meanwhile, so that a busy
        API's requests seldom wait for the node at the end of a TTL."""
        cached = self._head
        if cached is None:
            return None
        age = time.monotonic() - cached[0]
        if age >= self.head_ttl:
            return None
        if age >= self.head_ttl / 2 and not self._refreshing:
            self._refreshing = True
            if self._refresher is None:
                # one long-lived thread (the transport keeps a connection per thread)
                self._refresher = threading.Thread(
                    target=_refresh_heads,
                    args=(weakref.ref(self), self._wake),
                    daemon=True,
                    name="chain-head",
                )
                self._refresher.start()
            self._wake.set()
        return cached[1]

    def head(self, fresh: bool = False) -> BlockRef:
        """The latest block, cached for `head_ttl` seconds (the pin of ownership checks)."""
        cached = self._head
        if not fresh and cached is not None and time.monotonic() - cached[0] < self.head_ttl:
            return cached[1]
        check_may_wait("the head block")  # the lock below may be held for another's read
        with self._head_lock:  # one refresh when the pin expires, not one per waiting request
            cached = self._head
            if not fresh and cached is not None and time.monotonic() - cached[0] < self.head_ttl:
                return cached[1]
            now = time.monotonic()
            ref = self.rpc.head()
            self._head = (now, ref)
            return ref

    def block_hash(self, number: int) -> str | None:
        """The hash of block `number` on the node's canonical chain (None if not mined)."""
        return self.rpc.block_hash(number)

    def has_code(self, address: str) -> bool:
        """Whether `address` is a contract (cached once true)."""
        if self._code.get(address):
            return True
        has = bool(self.rpc.code(to_checksum_address(address)))
        if has:
            self._code[address] = True
        return has

    def check_deployment(self) -> None:
        """Refuse a deployment file for another chain or with no code at its addresses (stale)."""
        node_chain = self.chain_id()
        if node_chain != self.addresses.chain_id:
            raise ConfigurationError(
                f"the deployment file is for chain id {self.addresses.chain_id} but {self.rpc_url} is chain "
                f"{node_chain}; redeploy (`metaledger chain deploy`)"
            )
        for name, address in (
            ("CardToken", self.addresses.card_token),
            ("MatchLedger", self.addresses.match_ledger),
        ):
            if not self.has_code(address):
                raise ConfigurationError(
                    f"the deployment file is stale: no {name} contract at {address} on {self.rpc_url}; "
                    "redeploy (`metaledger chain deploy`)"
                )

    def balances(
        self, owners: Sequence[str], token_ids: Sequence[int], block: BlockRef | str = "latest"
    ) -> list[int]:
        """`balanceOfBatch(owners, token_ids)` in ONE eth_call, pinned to `block` by hash
        (EIP-1898), shared with the reads other threads make at the same block meanwhile."""
        return self._reads.balances(owners, token_ids, block)

    def transfers(self, from_block: int, to_block: int) -> list[dict[str, Any]]:
        """The CardToken's TransferSingle / TransferBatch rows in [from_block, to_block], read in
        eth_getLogs chunks, in log order. A range read less than `head_ttl` seconds ago is
        answered from memory (registrations within one head pin ask for the same range)."""
        key = (from_block, to_block)
        now = time.monotonic()
        with self._transfers_lock:
            hit = self._transfers.get(key)
            if hit is not None and now - hit[0] < self.head_ttl:
                return hit[1]
        rows = self.token.transfers(from_block, to_block)
        with self._transfers_lock:
            self._transfers[key] = (now, rows)
            self._transfers.move_to_end(key)
            while len(self._transfers) > TRANSFER_RANGES_KEPT:
                self._transfers.popitem(last=False)
        return rows

    def is_valid_signature_1271(self, wallet: str, digest: bytes, signature: bytes) -> bool:
        """EIP-1271: whether contract `wallet` accepts `signature` over `digest` (a revert or any
        other answer than the magic value is a no; a failing node is an error)."""
        return eip1271_accepts(self.rpc, wallet, digest, signature)

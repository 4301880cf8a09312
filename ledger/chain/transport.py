"""The one JSON-RPC transport: every chain call of the API, the workers, the verifier and the
local stack goes through `JsonRpc`.

- Keep-alive: one HTTP(S) connection per thread, TCP_NODELAY, basic auth from the URL.
- Retries: a transport failure (refused, reset, timed out, a stale keep-alive connection), an
  HTTP 429/502/503/504 and a JSON-RPC rate-limit error (providers answer some "slow down" with
  HTTP 200) are retried `retries` times with exponential back-off; any other JSON-RPC error is
  the node's answer and is never retried.
- Error mapping, here and nowhere else: a node that does not answer is `ServiceUnavailable`
  (retryable), a node that refuses is `RpcError` (a `ChainError`, carrying the revert data).
- Deferral: a thread that must not wait for a node (the API's event loop, see
  `api.deps.run_local`) marks its work with `deferring_chain_reads()`; a chain read there raises
  `ChainReadDeferred` before anything is sent (or waited for), and the caller runs the work again
  where it may wait.
- `eth_getLogs` in chunks of at most `max_log_range` blocks; a chunk the provider refuses as too
  large (or as returning too many logs) is halved, down to a single block, and the transport keeps
  the smaller range for its later scans. `log_chunks` yields each chunk as it is read, so a caller
  can record its progress and resume after a failure from the next chunk (the indexer commits
  its cursor per chunk).
"""

from __future__ import annotations

import base64
import http.client
import json
import socket
import threading
import time
import urllib.parse
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ledger.errors import ChainError, InvalidInput, ServiceUnavailable
from ledger.protocol.hexcodec import from_hex, to_hex

if TYPE_CHECKING:
    from ledger.settings import Settings

#: HTTP statuses that mean "busy or briefly away": retried like a dropped connection
RETRY_STATUSES = frozenset({429, 502, 503, 504})
#: how providers word "that log range is too large" (Alchemy, Infura, QuickNode, geth, Erigon)
_RANGE_ERRORS = (
    "block range",
    "range too large",
    "range is too large",
    "too many blocks",
    "exceed maximum block range",
    "query returned more than",
    "too many results",
    "response size exceeded",
    "log response size",
    "limit exceeded",
)
#: how providers word "slow down" in a JSON-RPC error (retried with back-off, like HTTP 429)
_RATE_LIMIT_ERRORS = ("rate limit", "too many requests", "request limit", "throttl", "capacity")
_RATE_LIMIT_CODES = frozenset({429, -32029})
#: how nodes say that they no longer hold the state of a block (Anvil, geth, Erigon, providers)
_NO_HISTORICAL_STATE = (
    "blockoutofrange",
    "missing trie node",
    "header not found",
    "historical state",
    "pruned",
    "archive",
)


class ChainReadDeferred(Exception):
    """A chain read asked for on a thread that defers them (`deferring_chain_reads`): not an
    error of the request, the signal to run its work again where a node's answer may be awaited
    (never rendered: the caller that deferred catches it)."""


_deferring = threading.local()


@contextmanager
def deferring_chain_reads() -> Iterator[None]:
    """While the body runs, a chain read on this thread raises `ChainReadDeferred` instead of
    waiting for the node."""
    before = getattr(_deferring, "on", False)
    _deferring.on = True
    try:
        yield
    finally:
        _deferring.on = before


def check_may_wait(what: str) -> None:
    """Raise `ChainReadDeferred` if this thread defers chain reads (`what`: the read asked for)."""
    if getattr(_deferring, "on", False):
        raise ChainReadDeferred(f"{what} is a chain read: deferred to a thread that may wait")


@dataclass(frozen=True)
class BlockRef:
    """A block by number and hash (the pin of an ownership check)."""

    number: int
    hash: str


#: where a read is made: a number, a tag ("latest", "pending"), or a block pinned by hash
BlockId = int | str | BlockRef


def block_param(block: BlockId) -> Any:
    """The JSON-RPC block parameter of `block` (EIP-1898 by hash for a BlockRef)."""
    if isinstance(block, BlockRef):
        return {"blockHash": block.hash, "requireCanonical": True}
    return hex(block) if isinstance(block, int) else block


def eth_call_params(
    to: str, data: bytes, block: BlockId = "latest", sender: str | None = None
) -> tuple[dict[str, str], Any]:
    """The JSON-RPC params of an eth_call of `data` on `to` at `block` (the one spelling: a
    read asked ahead in a batch is the same read `JsonRpc.eth_call` asks)."""
    tx: dict[str, str] = {"to": to, "data": to_hex(data)}
    if sender:
        tx["from"] = sender
    return tx, block_param(block)


class RpcError(ChainError):
    """The node answered a JSON-RPC call with an error (a revert carries its data)."""

    def __init__(self, method: str, error: Any) -> None:
        self.error: dict[str, Any] = error if isinstance(error, dict) else {"message": str(error)}
        super().__init__(f"chain refused {method}: {self.error.get('message', error)}")

    @property
    def message(self) -> str:
        """The node's error message."""
        return str(self.error.get("message", ""))

    @property
    def revert_data(self) -> bytes | None:
        """The revert data, if this is a reverted call."""
        data = self.error.get("data")
        if isinstance(data, dict):
            data = data.get("data")
        if not isinstance(data, str):
            return None
        try:
            return from_hex(data)
        except InvalidInput:
            return None

    @property
    def is_rate_limited(self) -> bool:
        """Whether the provider refused the call for being too frequent (worth a retry later)."""
        text = self.message.lower()
        code = self.error.get("code")
        return code in _RATE_LIMIT_CODES or any(words in text for words in _RATE_LIMIT_ERRORS)

    @property
    def is_range_error(self) -> bool:
        """Whether the provider refused an eth_getLogs range as too large."""
        text = self.message.lower()
        return not self.is_rate_limited and any(words in text for words in _RANGE_ERRORS)

    @property
    def lacks_historical_state(self) -> bool:
        """Whether the node no longer holds the state of the block asked about."""
        text = str(self).lower()
        return any(words in text for words in _NO_HISTORICAL_STATE)


class JsonRpc:
    """A JSON-RPC client of one node. Thread-safe: one keep-alive connection per thread."""

    def __init__(
        self,
        url: str,
        *,
        timeout: float = 10.0,
        retries: int = 2,
        backoff: float = 0.25,
        max_log_range: int = 2000,
    ) -> None:
        self.url = url
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self.max_log_range = max(1, max_log_range)
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ServiceUnavailable(f"chain at {url} does not answer: not an http(s) URL")
        self._https = parts.scheme == "https"
        self._host = parts.hostname
        self._port = parts.port
        self._path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        self._headers = {"Content-Type": "application/json", "Connection": "keep-alive"}
        if parts.username:
            token = base64.b64encode(f"{parts.username}:{parts.password or ''}".encode()).decode()
            self._headers["Authorization"] = f"Basic {token}"
        self._local = threading.local()
        self._connections: set[http.client.HTTPConnection] = set()
        self._lock = threading.Lock()
        self._ids = 0

    @classmethod
    def from_settings(cls, settings: Settings | None = None, **options: Any) -> JsonRpc:
        """A transport for the settings' RPC URL and log range."""
        if settings is None:
            from ledger.settings import get_settings

            settings = get_settings()
        options.setdefault("max_log_range", settings.rpc_max_log_range)
        return cls(settings.rpc_url, **options)

    # -- the wire ------------------------------------------------------------------------

    def close(self) -> None:
        """Close every connection this transport opened (in any thread)."""
        with self._lock:
            connections, self._connections = self._connections, set()
        for conn in connections:
            conn.close()
        self._local = threading.local()

    def __enter__(self) -> JsonRpc:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        # a transport dropped without close() (a one-off call) must not leak its sockets
        connections = getattr(self, "_connections", None)
        for conn in connections or ():
            conn.close()

    def _connection(self) -> http.client.HTTPConnection:
        conn: http.client.HTTPConnection | None = getattr(self._local, "conn", None)
        if conn is None:
            kind = http.client.HTTPSConnection if self._https else http.client.HTTPConnection
            conn = kind(self._host, self._port, timeout=self.timeout)
            conn.connect()
            if conn.sock is not None:
                conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self._local.conn = conn
            with self._lock:
                self._connections.add(conn)
        return conn

    def _drop(self, conn: http.client.HTTPConnection | None) -> None:
        if conn is not None:
            conn.close()
            with self._lock:
                self._connections.discard(conn)
        self._local.conn = None

    def _post(self, method: str, body: bytes) -> bytes:
        """POST one body; retried on transport failures and busy answers, then ServiceUnavailable."""
        check_may_wait(method)
        problem = ""
        delay = 0.0
        for attempt in range(self.retries + 1):
            if attempt:
                time.sleep(delay)
            reused = getattr(self._local, "conn", None) is not None
            conn = None
            try:
                conn = self._connection()
                conn.request("POST", self._path, body, self._headers)
                response = conn.getresponse()
                data = response.read()
            except (OSError, http.client.HTTPException) as exc:
                self._drop(conn)
                problem = str(exc) or type(exc).__name__
                # a keep-alive connection the server closed is retried at once
                delay = 0.0 if reused else self.backoff * 2**attempt
                continue
            if response.status == 200:
                return data
            if response.status not in RETRY_STATUSES:
                raise ServiceUnavailable(
                    f"chain at {self.url} answered {method} with HTTP {response.status}"
                )
            problem, delay = f"HTTP {response.status}", self.backoff * 2**attempt
        raise ServiceUnavailable(f"chain at {self.url} does not answer {method}: {problem}")

    def request(self, method: str, params: Sequence[Any]) -> dict[str, Any]:
        """A JSON-RPC request object with this transport's next id."""
        with self._lock:
            self._ids += 1
            return {"jsonrpc": "2.0", "id": self._ids, "method": method, "params": list(params)}

    def call(self, method: str, *params: Any) -> Any:
        """One JSON-RPC call: its result; ServiceUnavailable if the node does not answer (or
        keeps saying it is rate-limited), RpcError if it refuses."""
        body = json.dumps(self.request(method, params)).encode()
        for attempt in range(self.retries + 1):
            if attempt:
                time.sleep(self.backoff * 2**attempt)
            try:
                reply = json.loads(self._post(method, body))
            except ValueError as exc:
                raise ChainError(
                    f"chain at {self.url} answered {method} with invalid JSON"
                ) from exc
            if not isinstance(reply, dict):
                raise ChainError(f"chain at {self.url} answered {method} with a non-object")
            if reply.get("error") is None:
                return reply.get("result")
            error = RpcError(method, reply["error"])
            if not error.is_rate_limited:
                raise error
        raise ServiceUnavailable(
            f"chain at {self.url} keeps rate-limiting {method}: {error.message}"
        )

    def _bytes(self, method: str, value: Any) -> bytes:
        try:
            return from_hex(value, method)
        except InvalidInput:
            raise ChainError(f"chain at {self.url} answered {method} with malformed data") from None

    def _int(self, method: str, value: Any) -> int:
        try:
            return int(value, 16)
        except (TypeError, ValueError):
            raise ChainError(f"chain at {self.url} answered {method} with {value!r}") from None

    # -- reads ---------------------------------------------------------------------------

    def chain_id(self) -> int:
        """The node's chain id."""
        return self._int("eth_chainId", self.call("eth_chainId"))

    def block_number(self) -> int:
        """The latest block number."""
        return self._int("eth_blockNumber", self.call("eth_blockNumber"))

    def block(self, block: int | str) -> dict[str, Any] | None:
        """A block header (no transactions) by number or tag; None if there is none."""
        result: dict[str, Any] | None = self.call("eth_getBlockByNumber", block_param(block), False)
        return result

    def block_hash(self, number: int) -> str | None:
        """The canonical hash of block `number` (None if it does not exist yet)."""
        block = self.block(number)
        return None if block is None else str(block["hash"])

    def head(self) -> BlockRef:
        """The latest block by number and hash."""
        block = self.block("latest")
        if block is None:
            raise ChainError(f"chain at {self.url} has no latest block")
        return BlockRef(self._int("eth_getBlockByNumber", block["number"]), str(block["hash"]))

    def code(self, address: str, block: BlockId = "latest") -> bytes:
        """The code at `address` (empty for an account without code)."""
        return self._bytes("eth_getCode", self.call("eth_getCode", address, block_param(block)))

    def nonce(self, address: str, block: str = "latest") -> int:
        """The account's transaction count at `block` ("latest" or "pending")."""
        return self._int(
            "eth_getTransactionCount", self.call("eth_getTransactionCount", address, block)
        )

    def receipt(self, tx_hash: str) -> dict[str, Any] | None:
        """A transaction receipt, or None if not mined."""
        result: dict[str, Any] | None = self.call("eth_getTransactionReceipt", tx_hash)
        return result

    def eth_call(
        self, to: str, data: bytes, block: BlockId = "latest", sender: str | None = None
    ) -> bytes:
        """eth_call of `data` on `to` at `block`; the raw return data (RpcError on a revert)."""
        return self._bytes(
            "eth_call", self.call("eth_call", *eth_call_params(to, data, block, sender))
        )

    def log_chunks(
        self, address: str, topics: list[Any], from_block: int, to_block: int | str = "latest"
    ) -> Iterator[tuple[int, int, list[dict[str, Any]]]]:
        """eth_getLogs of one contract over [from_block, to_block], one (first block, last block,
        logs) per chunk of at most `max_log_range` blocks, in block order. A chunk refused as too
        large is halved (down to one block) and the smaller range kept for later scans; a
        rate-limited one is retried with back-off (`call`). Resume a scan that failed after
        chunk (a, b) from b + 1."""
        end = self.block_number() if isinstance(to_block, str) else to_block
        start = max(0, from_block)
        while start <= end:
            span = self.max_log_range
            stop = min(end, start + span - 1)
            query = {
                "address": address,
                "topics": topics,
                "fromBlock": hex(start),
                "toBlock": hex(stop),
            }
            try:
                found = self.call("eth_getLogs", query) or []
            except RpcError as exc:
                if span > 1 and exc.is_range_error:
                    self.max_log_range = max(1, span // 2)
                    continue
                raise
            yield start, stop, found
            start = stop + 1

    def logs(
        self, address: str, topics: list[Any], from_block: int, to_block: int | str = "latest"
    ) -> list[dict[str, Any]]:
        """Every log of `log_chunks` over [from_block, to_block], in block order."""
        return [
            entry
            for _a, _b, chunk in self.log_chunks(address, topics, from_block, to_block)
            for entry in chunk
        ]

    # -- writes --------------------------------------------------------------------------

    def send_raw(self, raw_tx: str) -> str:
        """Broadcast signed bytes; the transaction hash, or "" when the node already has it
        (known, mined, or its nonce used: the caller reads the receipt)."""
        try:
            return str(self.call("eth_sendRawTransaction", raw_tx))
        except RpcError as exc:
            text = exc.message.lower()
            if "already" in text or "known" in text or "nonce too low" in text:
                return ""
            raise


class OnOneChain:
    """For a class with `rpc` (a JsonRpc) and `_chain_id` (the chain id if given, else None):
    the node's chain id, asked once."""

    rpc: JsonRpc
    _chain_id: int | None

    @property
    def chain_id(self) -> int:
        """The chain id (asked once)."""
        if self._chain_id is None:
            self._chain_id = self.rpc.chain_id()
        return self._chain_id

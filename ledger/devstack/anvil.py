"""A local Anvil chain as a child process: start on a free port, wait until it answers, stop."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ledger.chain.transport import JsonRpc
from ledger.devstack.childprocess import ChildProcess
from ledger.devstack.ports import ensure_free, free_port
from ledger.devstack.toolchain import node_bin
from ledger.errors import MetaLedgerError

if TYPE_CHECKING:
    from web3 import Web3


def chain_answers(url: str, timeout: float = 1.0) -> bool:
    """Whether a JSON-RPC node answers `eth_chainId` at `url` within `timeout` seconds."""
    try:
        with JsonRpc(url, timeout=timeout, retries=0) as rpc:
            rpc.chain_id()
        return True
    except MetaLedgerError:
        return False


class AnvilNode:
    """A running Anvil process."""

    def __init__(self, child: ChildProcess, port: int, host: str = "127.0.0.1") -> None:
        self.child = child
        self.port = port
        self.host = host
        self.rpc_url = f"http://{host}:{port}"
        self.transport = JsonRpc(self.rpc_url, timeout=30)
        self._w3: Web3 | None = None

    @property
    def pid(self) -> int:
        """The process id."""
        return self.child.pid

    @property
    def chain_id(self) -> int:
        """The chain id (31337 for Anvil)."""
        return self.transport.chain_id()

    @property
    def w3(self) -> Web3:
        """A web3 client connected to this node."""
        if self._w3 is None:
            from web3 import Web3

            self._w3 = Web3(Web3.HTTPProvider(self.rpc_url, request_kwargs={"timeout": 30}))
        return self._w3

    def rpc(self, method: str, *params: Any) -> Any:
        """A raw JSON-RPC call to this node."""
        return self.transport.call(method, *params)

    def snapshot(self) -> str:
        """Take an EVM snapshot; returns its id."""
        return str(self.rpc("evm_snapshot"))

    def revert(self, snapshot_id: str) -> None:
        """Revert to a snapshot taken with `snapshot()`."""
        self.rpc("evm_revert", snapshot_id)

    def mine(self, blocks: int = 1) -> None:
        """Mine `blocks` empty blocks."""
        self.rpc("anvil_mine", hex(blocks))

    def is_running(self) -> bool:
        """Whether the process is alive."""
        return self.child.alive()

    def stop(self) -> None:
        """Stop the process (SIGTERM, so that a `--state` file is written; SIGKILL after 10 s)."""
        self.transport.close()
        self.child.stop(timeout=10)

    def __enter__(self) -> AnvilNode:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def anvil_args(
    port: int,
    host: str = "127.0.0.1",
    *,
    block_time: float | None = None,
    state_file: Path | None = None,
    hardfork: str | None = None,
) -> list[str]:
    """The Anvil command line: chain id 31337; with `state_file`, the chain (and every
    historical state, so old blocks stay readable) is loaded from it and written back on exit."""
    args = [str(node_bin("anvil")), "--host", host, "--port", str(port), "--chain-id", "31337"]
    if block_time is not None:
        args += ["--block-time", str(block_time)]
    if state_file is not None:
        args += ["--state", str(state_file), "--preserve-historical-states"]
    if hardfork is not None:
        args += ["--hardfork", hardfork]
    return args


def start_anvil(
    port: int | None = None,
    *,
    host: str = "127.0.0.1",
    block_time: float | None = None,
    log_file: Path | None = None,
    state_file: Path | None = None,
    timeout: float = 20.0,
    detach: bool = False,
    hardfork: str | None = None,
    should_stop: Callable[[], bool] = lambda: False,
    extra_args: Sequence[str] = (),
) -> AnvilNode:
    """Start Anvil on `port` (a free one when None) with `extra_args`, and wait until it
    answers; `hardfork` picks the EVM rules (e.g. "cancun"; Anvil's latest when None). A
    detached Anvil outlives this process (`metaledger chain start`)."""
    if port is None:
        port = free_port(host)
    else:
        ensure_free(port, "Anvil", host)
    args = [
        *anvil_args(port, host, block_time=block_time, state_file=state_file, hardfork=hardfork),
        *extra_args,
    ]
    child = ChildProcess("anvil", args, log_file=log_file, die_with_parent=not detach).start()
    node = AnvilNode(child, port, host)
    child.wait_until(
        lambda: chain_answers(node.rpc_url), f"answer on port {port}", timeout, should_stop
    )
    return node

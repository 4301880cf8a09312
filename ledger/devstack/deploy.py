"""Deploy CardToken, MatchLedger and CardExchange from the shipped artifacts, mint cards, and reuse
a deployment that still matches the chain (`ensure_deployment`, what `make run` and
`metaledger chain deploy` do).

    deployment = deploy_all(w3, publisher, signer_address, anchorer_address, rpc_url=url)
    deployment.save(settings.resolved_deployment_file)
    seed_demo(w3, deployment, publisher, {wallet: [(token_id("metax", "U92-JL"), 3), ...]})

Transactions are signed by the publisher's Signer (`ledger.keys`; no unlocked node accounts), so the same
code deploys to Anvil or any EVM chain that has the Cancun upgrade (checked before anything is
sent). The publisher becomes the default admin of CardToken and MatchLedger, whose handover waits
`admin_delay` seconds (OpenZeppelin AccessControlDefaultAdminRules).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from eth_utils import to_checksum_address

from ledger.chain.artifacts import describe_revert, load_artifact
from ledger.chain.deployment import Deployment
from ledger.chain.transport import JsonRpc
from ledger.errors import ChainError, ConfigurationError, ServiceUnavailable
from ledger.keys.roles import Role, load_signer, role_address
from ledger.keys.signer import Signer, as_signer
from ledger.settings import ANVIL_CHAIN_ID, Settings

if TYPE_CHECKING:
    from web3 import Web3
    from web3.contract import Contract
    from web3.types import TxReceipt

#: CardToken's metadata URI when none is given: the API's default address (`deploy_from_settings`
#: uses METALEDGER_PUBLIC_BASE_URL; `ensure_token_uri` moves it to where the API really answers)
DEFAULT_TOKEN_URI = "http://127.0.0.1:8000/cards/{id}.json"
CONTRACTS: tuple[str, ...] = ("CardToken", "MatchLedger", "CardExchange")

#: Edition size `seed_demo` gives a card design that has none yet. The catalogues carry no rarity,
#: so every demo card design gets the same, ample for repeated demo seeding and the benchmarks;
#: a publisher sets real edition sizes per card (`CardToken.setMaxSupply`) before minting it.
DEMO_EDITION_SIZE = 10_000
#: Edition sizes set per transaction by `seed_demo` (about 50,000 gas each).
_EDITIONS_PER_TX = 100

#: Creation code that runs TLOAD (EIP-1153) and MCOPY (EIP-5656), the Cancun opcodes the compiled
#: contracts use: PUSH1 0 TLOAD POP PUSH1 0 PUSH1 0 PUSH1 0 MCOPY STOP. It fails on an older EVM.
_CANCUN_PROBE = "0x60005c506000600060005e00"


@contextmanager
def web3_errors(what: str) -> Iterator[None]:
    """The transport's error mapping around web3 calls: a node that does not answer is
    ServiceUnavailable, a node that refuses is ChainError (ours pass through)."""
    from web3.exceptions import Web3Exception

    try:
        yield
    except Web3Exception as exc:
        raise ChainError(f"{what} failed: {exc}") from exc
    except OSError as exc:  # requests' connection errors and timeouts are OSErrors
        raise ServiceUnavailable(f"the chain does not answer ({what}): {exc}") from exc


def contract(w3: Web3, deployment: Deployment, name: str) -> Contract:
    """A web3 contract object for `name` ("CardToken", "MatchLedger", "CardExchange") at its address."""
    return w3.eth.contract(address=deployment.addresses[name], abi=load_artifact(name).abi)  # type: ignore[call-overload, no-any-return]


class Sender:
    """Signs and sends transactions from one key with locally tracked nonces."""

    def __init__(self, w3: Web3, key: Signer | str) -> None:
        self.w3 = w3
        self.account = as_signer(key)
        self.nonce: int = int(
            w3.eth.get_transaction_count(to_checksum_address(self.account.address), "pending")
        )
        self.chain_id = w3.eth.chain_id

    def send(self, tx: dict[str, Any], what: str) -> bytes:
        from web3.exceptions import ContractCustomError

        tx = {**tx, "from": self.account.address, "nonce": self.nonce, "chainId": self.chain_id}
        if "gas" not in tx:
            try:
                tx["gas"] = int(self.w3.eth.estimate_gas(tx) * 1.2) + 10_000  # type: ignore[arg-type]
            except ContractCustomError as exc:
                data = bytes.fromhex(str(exc.data or "0x").removeprefix("0x"))
                raise ChainError(f"{what} would revert: {describe_revert(data) or exc}") from exc
        if "maxFeePerGas" not in tx and "gasPrice" not in tx:
            base = self.w3.eth.get_block("latest").get("baseFeePerGas", 0) or 0
            tip = self.w3.eth.max_priority_fee
            tx["maxPriorityFeePerGas"] = tip
            tx["maxFeePerGas"] = 2 * base + tip
        signed = self.account.sign_transaction(tx)
        tx_hash = self.w3.eth.send_raw_transaction(signed.raw)
        self.nonce += 1
        return bytes(tx_hash)

    def wait(self, tx_hash: bytes, what: str) -> TxReceipt:
        receipt = self.w3.eth.wait_for_transaction_receipt(tx_hash, timeout=120)  # type: ignore[arg-type]
        if receipt["status"] != 1:
            raise ChainError(f"{what} failed in transaction {tx_hash.hex()}")
        return receipt


def _deploy(sender: Sender, name: str, *args: Any) -> tuple[str, TxReceipt]:
    artifact = load_artifact(name)
    factory = sender.w3.eth.contract(abi=artifact.abi, bytecode=artifact.bytecode)
    data = factory.constructor(*args).data_in_transaction
    receipt = sender.wait(sender.send({"data": data}, f"deploying {name}"), f"deploying {name}")
    address = receipt["contractAddress"]
    if address is None:
        raise ChainError(f"deploying {name} created no contract")
    return to_checksum_address(address), receipt


def require_cancun(w3: Web3) -> None:
    """Refuse (ConfigurationError) a chain without the Cancun upgrade, before anything is sent."""
    from web3.exceptions import Web3Exception

    try:
        w3.eth.call({"data": _CANCUN_PROBE})  # type: ignore[typeddict-item]
    except (Web3Exception, ValueError) as exc:
        raise ConfigurationError(
            f"chain {w3.eth.chain_id} has no Cancun upgrade (EIP-1153 transient storage, EIP-5656 "
            f"MCOPY), which the contracts need; see README, Supported chains (the node said: {exc})"
        ) from exc


def deploy_all(
    w3: Web3,
    publisher: Signer | str,
    signer: str,
    anchorer: str,
    *,
    rpc_url: str = "",
    token_uri: str = DEFAULT_TOKEN_URI,
    admin_delay: int | None = None,
) -> Deployment:
    """Deploy the three contracts with the publisher key (default admin of CardToken and
    MatchLedger, handover delay `admin_delay` seconds: by default the settings' value for this
    chain), grant ANCHORER_ROLE to `anchorer` and register `signer` in MatchLedger.
    Returns the Deployment (not yet saved)."""
    from ledger.settings import get_settings

    with web3_errors("deployment"):
        require_cancun(w3)
        chain_id = w3.eth.chain_id
        delay = (
            get_settings().admin_delay_for_chain(chain_id) if admin_delay is None else admin_delay
        )
        sender = Sender(w3, publisher)
        admin = sender.account.address
        token, token_receipt = _deploy(sender, "CardToken", token_uri, admin, delay)
        ledger, ledger_receipt = _deploy(sender, "MatchLedger", admin, delay)
        exchange, exchange_receipt = _deploy(sender, "CardExchange", token)
        match_ledger = w3.eth.contract(address=ledger, abi=load_artifact("MatchLedger").abi)  # type: ignore[call-overload]
        role = match_ledger.functions.ANCHORER_ROLE().call()
        what = "configuring MatchLedger"
        hashes = [
            sender.send(
                {
                    "to": ledger,
                    "data": match_ledger.encode_abi(
                        "grantRole", [role, to_checksum_address(anchorer)]
                    ),
                },
                what,
            ),
            sender.send(
                {
                    "to": ledger,
                    "data": match_ledger.encode_abi("addSigner", [to_checksum_address(signer)]),
                },
                what,
            ),
        ]
        for tx_hash in hashes:
            sender.wait(tx_hash, what)
    return Deployment(
        chain_id=sender.chain_id,
        rpc_url=rpc_url,
        addresses={"CardToken": token, "MatchLedger": ledger, "CardExchange": exchange},
        deployment_block=int(token_receipt["blockNumber"]),
        deployer=admin,
        signer=to_checksum_address(signer),
        anchorer=to_checksum_address(anchorer),
        source_hash=load_artifact("CardToken").source_hash,
        receipts={
            "CardToken": token_receipt["transactionHash"].to_0x_hex(),
            "MatchLedger": ledger_receipt["transactionHash"].to_0x_hex(),
            "CardExchange": exchange_receipt["transactionHash"].to_0x_hex(),
        },
    )


def deploy_from_settings(w3: Web3, rpc_url: str) -> Deployment:
    """Deploy with the publisher's key, the result signer's and the anchorer's addresses (their
    keystores are not decrypted) and the admin delay from settings (dev keys refused off 31337)."""
    from ledger.settings import get_settings

    settings = get_settings()
    with web3_errors("deployment"):
        chain_id = w3.eth.chain_id
    signer = role_address(settings, Role.RESULT_SIGNER, chain_id)
    anchorer = role_address(settings, Role.ANCHORER, chain_id)
    publisher = load_signer(settings, Role.PUBLISHER, chain_id)
    return deploy_all(
        w3, publisher, signer, anchorer, rpc_url=rpc_url, token_uri=settings.token_uri
    )


def ensure_token_uri(
    w3: Web3, deployment: Deployment, publisher: Signer | str, uri: str
) -> str | None:
    """Make CardToken's metadata URI `uri` (`setURI`, URI_SETTER_ROLE) unless it already is;
    the transaction hash, or None when nothing had to change."""
    token = contract(w3, deployment, "CardToken")
    with web3_errors("setting the card metadata URI"):
        if token.functions.uri(0).call() == uri:
            return None
        sender = Sender(w3, publisher)
        tx_hash = sender.send(
            {"to": deployment.card_token, "data": token.encode_abi("setURI", [uri])},
            "setting the card metadata URI",
        )
        sender.wait(tx_hash, "setting the card metadata URI")
    return "0x" + tx_hash.hex()


def seed_demo(
    w3: Web3,
    deployment: Deployment,
    publisher: Signer | str,
    holdings: Mapping[str, Sequence[tuple[int, int]]],
    edition_size: int = DEMO_EDITION_SIZE,
) -> list[str]:
    """Mint demo cards: first give every card design without an edition size `edition_size`
    (`setMaxSupplyBatch`), then one `mintBatch` per wallet of its (token_id, amount) pairs.
    Returns the transaction hashes (all confirmed)."""
    token = contract(w3, deployment, "CardToken")
    with web3_errors("seeding demo cards"):
        sender = Sender(w3, publisher)
        merged_by_wallet: dict[str, dict[int, int]] = {}
        for wallet, cards in holdings.items():
            merged: dict[int, int] = {}
            for token_id, amount in cards:
                merged[int(token_id)] = merged.get(int(token_id), 0) + int(amount)
            if merged:
                merged_by_wallet[to_checksum_address(wallet)] = merged
        designs = sorted({i for merged in merged_by_wallet.values() for i in merged})
        missing = [i for i in designs if token.functions.maxSupply(i).call() == 0]
        editions = []
        for start in range(0, len(missing), _EDITIONS_PER_TX):
            chunk = missing[start : start + _EDITIONS_PER_TX]
            data = token.encode_abi("setMaxSupplyBatch", [chunk, [edition_size] * len(chunk)])
            editions.append(
                sender.send({"to": deployment.card_token, "data": data}, "setting edition sizes")
            )
        for tx_hash in editions:  # mined before the mints are estimated (and their errors named)
            sender.wait(tx_hash, "setting edition sizes")
        mints = []
        for wallet, merged in merged_by_wallet.items():
            data = token.encode_abi("mintBatch", [wallet, list(merged), list(merged.values()), b""])
            mints.append(
                sender.send({"to": deployment.card_token, "data": data}, "minting demo cards")
            )
        for tx_hash in mints:
            sender.wait(tx_hash, "minting demo cards")
        hashes = editions + mints
    return ["0x" + h.hex() for h in hashes]


def stale_reason(
    deployment: Deployment, chain_id: int, code_at: Callable[[str], bytes]
) -> str | None:
    """Why a deployment does not match the chain, or None when it does."""
    if deployment.chain_id != chain_id:
        return f"it is for chain id {deployment.chain_id}, the chain is {chain_id}"
    for name, address in deployment.addresses.items():
        if not code_at(address):
            return f"no {name} code at {address}"
    if deployment.source_hash and deployment.source_hash != load_artifact("CardToken").source_hash:
        return "the contracts changed since it was deployed"
    return None


def _set_aside(path: Path, say: Callable[[str], None]) -> None:
    if path.exists():
        backup = path.with_name(f"{path.name}.{time.strftime('%Y%m%d-%H%M%S')}.bak")
        path.rename(backup)
        say(f"database: the chain was redeployed, so the old local database moved to {backup}")


def ensure_deployment(
    settings: Settings, rpc_url: str, say: Callable[[str], None] = print
) -> Deployment:
    """Return the deployment for the chain at `rpc_url`, deploying (and seeding) when needed."""
    from web3 import Web3

    with JsonRpc(rpc_url, timeout=30) as rpc:
        chain_id = rpc.chain_id()
        path = settings.resolved_deployment_file
        deployment = Deployment.load(path) if path.exists() else None
        reason = (
            None
            if deployment is None
            else stale_reason(deployment, chain_id, lambda a: rpc.code(to_checksum_address(a)))
        )
    if deployment is not None:
        if reason is None:
            say(f"contracts: reusing the deployment in {path}")
            return deployment
        say(f"contracts: {path} is stale ({reason}); redeploying")
        if settings.database_url is None:
            _set_aside(Path(settings.resolved_database_url.removeprefix("sqlite:///")), say)
    w3 = Web3(Web3.HTTPProvider(rpc_url, request_kwargs={"timeout": 30}))
    deployment = deploy_from_settings(w3, rpc_url)
    deployment.save(path)
    say(f"contracts: deployed at block {deployment.deployment_block}; written to {path}")
    if chain_id == ANVIL_CHAIN_ID:
        from ledger.devstack.demo import DEMO_KEYS, demo_holdings

        seed_demo(w3, deployment, load_signer(settings, Role.PUBLISHER, chain_id), demo_holdings())
        say(f"contracts: minted the demo collection to {len(DEMO_KEYS)} demo wallets")
    return deployment

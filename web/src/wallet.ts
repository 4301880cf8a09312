// The browser wallet: EIP-6963 discovery of EIP-1193 providers, viem's wallet client over the
// chosen one, and sign-in with Ethereum (EIP-4361) against the API's /auth endpoints.

import {
  type Address,
  type Client,
  createClient,
  custom,
  type EIP1193Provider,
  type Hex,
  parseAbi,
  type TransactionReceipt,
  type TypedDataDefinition,
} from "viem";
import {
  getBalance,
  readContract,
  requestAddresses,
  sendTransaction as send,
  signMessage,
  signTypedData as signTyped,
  waitForTransactionReceipt,
} from "viem/actions";
import { createSiweMessage } from "viem/siwe";
import { api } from "./api";
import { type Session, session } from "./session";

/** EIP-6963 provider info. */
export interface WalletInfo {
  uuid: string;
  name: string;
  icon: string;
  rdns: string;
}

/** A wallet announced through EIP-6963. */
export interface Wallet {
  info: WalletInfo;
  provider: EIP1193Provider;
}

const found = new Map<string, Wallet>();

window.addEventListener("eip6963:announceProvider", (event: Event) => {
  const detail = (event as CustomEvent<Wallet>).detail;
  if (detail?.info?.uuid && detail.provider) found.set(detail.info.uuid, detail);
});

/** Every wallet that answers an EIP-6963 request within `waitMs`. */
export async function discoverWallets(waitMs = 150): Promise<Wallet[]> {
  window.dispatchEvent(new Event("eip6963:requestProvider"));
  await new Promise((resolve) => setTimeout(resolve, waitMs));
  return [...found.values()];
}

let client: Client | null = null;
let account: Address | null = null;

/** The wallet client of the signed-in wallet (found again after a reload). */
async function connected(): Promise<{ client: Client; account: Address }> {
  const s = session.current();
  if (!s) throw new Error("sign in first");
  if (client && account && account.toLowerCase() === s.address.toLowerCase()) {
    return { client, account };
  }
  const wallets = await discoverWallets();
  const wallet = wallets.find((w) => w.info.rdns === s.wallet) ?? wallets[0];
  if (!wallet) throw new Error("no browser wallet found (EIP-6963): install or unlock one");
  client = createClient({ transport: custom(wallet.provider) });
  const [first] = await requestAddresses(client);
  if (!first || first.toLowerCase() !== s.address.toLowerCase()) {
    throw new Error(`the wallet's account ${first} is not the signed-in ${s.address}: sign in again`);
  }
  account = first;
  return { client, account };
}

interface NonceGrant {
  nonce: string;
  domain: string;
  chain_id: number;
  uri: string;
  issued_at: string;
}

/** Sign in with `wallet`: a nonce, an EIP-4361 message signed with personal_sign, a session. */
export async function signIn(wallet: Wallet): Promise<Session> {
  const walletClient = createClient({ transport: custom(wallet.provider) });
  const [address] = await requestAddresses(walletClient);
  if (!address) throw new Error(`${wallet.info.name} shared no account`);
  const grant = await api<NonceGrant>("POST", "/auth/nonce");
  const message = createSiweMessage({
    address,
    chainId: grant.chain_id,
    domain: grant.domain,
    nonce: grant.nonce,
    uri: grant.uri,
    version: "1",
    issuedAt: new Date(grant.issued_at),
    statement: "Sign in to MetaLedger.",
  });
  const signature = await signMessage(walletClient, { account: address, message });
  const out = await api<Session>("POST", "/auth/verify", { message, signature });
  const s = { ...out, wallet: wallet.info.rdns };
  session.save(s);
  client = walletClient;
  account = address;
  return s;
}

/** End the session on the API and here. */
export async function signOut(): Promise<void> {
  try {
    await api("POST", "/auth/logout");
  } finally {
    session.clear();
    client = null;
    account = null;
  }
}

/** Ask the wallet to sign EIP-712 typed data (eth_signTypedData_v4). */
export async function signTypedData(typed: TypedDataDefinition): Promise<Hex> {
  const { client: c, account: a } = await connected();
  return signTyped(c, { ...typed, account: a } as Parameters<typeof signTyped>[1]);
}

/** Ask the wallet to send a transaction (eth_sendTransaction); its hash. */
export async function sendTransaction(tx: { to: Address; data: Hex; value?: bigint }): Promise<Hex> {
  const { client: c, account: a } = await connected();
  return send(c, { ...tx, account: a, chain: null });
}

/** Wait until the transaction `hash` is mined (the wallet's chain answers); its receipt. */
export async function waitForReceipt(hash: Hex): Promise<TransactionReceipt> {
  const { client: c } = await connected();
  return waitForTransactionReceipt(c, { hash, pollingInterval: 250, timeout: 120_000 });
}

const ERC1155_APPROVAL = parseAbi(["function isApprovedForAll(address account, address operator) view returns (bool)"]);

/** Whether `operator` may move the signed-in wallet's tokens of `token` (read through the wallet). */
export async function isApprovedForAll(token: Address, operator: Address): Promise<boolean> {
  const { client: c, account: a } = await connected();
  return readContract(c, { address: token, abi: ERC1155_APPROVAL, functionName: "isApprovedForAll", args: [a, operator] });
}

/** The signed-in wallet's ETH balance in wei (read through the wallet). */
export async function balanceOf(): Promise<bigint> {
  const { client: c, account: a } = await connected();
  return getBalance(c, { address: a });
}

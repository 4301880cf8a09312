// Signed moves (docs/api.md, "Signed moves"): the wallet signs one SeatAuthorization per match
// for a session key made in this page; the session key then signs every move (no wallet
// prompt), the resignation and the final MatchEnd; every operator receipt is checked against
// the match's receipt signer.

import { type Address, type Hex, recoverTypedDataAddress, toHex, type TypedDataDomain } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { signTypedData } from "./wallet";

/** EIP-712 fields from "name:type" words, in order. */
function fields(spec: string): { name: string; type: string }[] {
  return spec.split(/\s+/).map((word) => {
    const [name, type] = word.split(":");
    return { name, type };
  });
}

// the structs of ledger/protocol/eip712.py, field by field
const TYPES = {
  SeatAuthorization: fields(
    "matchId:bytes32 game:string rulesetVersion:string seat:uint8 deckHash:bytes32 seedCommit:bytes32 sessionKey:address expiry:uint64",
  ),
  MatchAction: fields("matchId:bytes32 seat:uint8 index:uint32 prevEntryHash:bytes32 action:string salt:bytes32"),
  MatchReceipt: fields("matchId:bytes32 index:uint32 entryHash:bytes32"),
  MatchEnd: fields("matchId:bytes32 entries:uint32 finalEntryHash:bytes32"),
};

/** How long a session key may sign this match's moves. */
const SESSION_SECONDS = 2 * 24 * 3600;

interface Stored {
  key: Hex;
  expiry: number;
}

function storageKey(matchId: string, address: string): string {
  return `metaledger.sessionkey.${matchId}.${address.toLowerCase()}`;
}

type SessionKey = { account: ReturnType<typeof privateKeyToAccount>; expiry: number };
// the account of each stored key, derived once (deriving the public key is the slow part)
const accounts = new Map<string, SessionKey>();

/** The session key of this match in this browser (made on first use). */
export function sessionKeyFor(matchId: string, address: string): SessionKey {
  const raw = localStorage.getItem(storageKey(matchId, address));
  let stored: Stored;
  if (raw) stored = JSON.parse(raw) as Stored;
  else {
    stored = { key: generatePrivateKey(), expiry: Math.floor(Date.now() / 1000) + SESSION_SECONDS };
    localStorage.setItem(storageKey(matchId, address), JSON.stringify(stored));
  }
  const known = accounts.get(stored.key);
  if (known && known.expiry === stored.expiry) return known;
  const made = { account: privateKeyToAccount(stored.key), expiry: stored.expiry };
  accounts.set(stored.key, made);
  return made;
}

/** Whether this browser holds the match's session key. */
export function hasSessionKey(matchId: string, address: string): boolean {
  return localStorage.getItem(storageKey(matchId, address)) !== null;
}

export interface SeatTerms {
  domain: TypedDataDomain;
  matchId: Hex;
  game: string;
  rulesetVersion: string;
  seat: number;
  deckHash: Hex;
  seedCommit: Hex;
}

/** The wallet's one prompt of the match: the SeatAuthorization of this page's session key. */
export async function authorizeSeat(terms: SeatTerms, address: string): Promise<{ session_key: Address; expiry: number; authorization: Hex }> {
  const { account, expiry } = sessionKeyFor(terms.matchId, address);
  const { domain, ...fields } = terms;
  const authorization = await signTypedData({
    domain,
    types: { SeatAuthorization: TYPES.SeatAuthorization },
    primaryType: "SeatAuthorization",
    message: { ...fields, sessionKey: account.address, expiry: BigInt(expiry) },
  });
  return { session_key: account.address, expiry, authorization };
}

function salt(): Hex {
  return toHex(crypto.getRandomValues(new Uint8Array(32)));
}

/** A move (or `["resign"]`) signed by the session key at `index` after `prevEntryHash`. */
export async function signMove(
  domain: TypedDataDomain,
  matchId: Hex,
  address: string,
  seat: number,
  index: number,
  prevEntryHash: Hex,
  action: (string | number)[],
): Promise<{ salt: Hex; signature: Hex }> {
  const { account } = sessionKeyFor(matchId, address);
  const s = salt();
  const signature = await account.signTypedData({
    domain,
    types: { MatchAction: TYPES.MatchAction },
    primaryType: "MatchAction",
    message: { matchId, seat, index, prevEntryHash, action: JSON.stringify(action), salt: s },
  });
  return { salt: s, signature };
}

/** The session key's MatchEnd over the whole transcript. */
export async function signEnd(domain: TypedDataDomain, matchId: Hex, address: string, entries: number, finalEntryHash: Hex): Promise<Hex> {
  const { account } = sessionKeyFor(matchId, address);
  return account.signTypedData({
    domain,
    types: { MatchEnd: TYPES.MatchEnd },
    primaryType: "MatchEnd",
    message: { matchId, entries, finalEntryHash },
  });
}

/** Whether `receipt` is the operator's (`signer`) MatchReceipt of entry `index`. */
export async function receiptIsOperators(domain: TypedDataDomain, matchId: Hex, index: number, entryHash: Hex, receipt: Hex, signer: string): Promise<boolean> {
  const by = await recoverTypedDataAddress({
    domain,
    types: { MatchReceipt: TYPES.MatchReceipt },
    primaryType: "MatchReceipt",
    message: { matchId, index, entryHash },
    signature: receipt,
  });
  return by.toLowerCase() === signer.toLowerCase();
}

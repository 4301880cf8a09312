// The player's part of the seed commit-reveal: a 32-byte secret from the browser's CSPRNG,
// committed as keccak256(secret) before anyone reveals, kept in this browser until revealed.

import { type Hex, keccak256, toHex } from "viem";

function key(matchId: string, address: string): string {
  return `metaledger.seed.${matchId}.${address.toLowerCase()}`;
}

/** This browser's secret for the match (made and kept on first use). */
export function secretFor(matchId: string, address: string): Hex {
  const found = localStorage.getItem(key(matchId, address));
  if (found) return found as Hex;
  const secret = toHex(crypto.getRandomValues(new Uint8Array(32)));
  localStorage.setItem(key(matchId, address), secret);
  return secret;
}

/** Whether this browser holds the secret of the match (it made the commitment). */
export function hasSecret(matchId: string, address: string): boolean {
  return localStorage.getItem(key(matchId, address)) !== null;
}

/** The commitment to a secret: keccak256(secret). */
export function commitOf(secret: Hex): Hex {
  return keccak256(secret);
}

/** Forget the secret once the match has started (the API discloses it at the end anyway). */
export function forgetSecret(matchId: string, address: string): void {
  localStorage.removeItem(key(matchId, address));
}

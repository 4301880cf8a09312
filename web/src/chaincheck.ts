// The audit checks this browser runs itself, with viem against the chain's JSON-RPC, so an
// auditor need not trust the server for them: the result's EIP-712 signature (digest
// recomputed, signer recovered, signer registered on MatchLedger when the batch was anchored)
// and the Merkle proof (root recomputed from the digest, equal to the on-chain batchRoot,
// and MatchLedger.verifyResult). The ABI comes from the deployed contract's artifact.

import {
  type Address,
  concat,
  createClient,
  encodeAbiParameters,
  type Hex,
  hashTypedData,
  http,
  keccak256,
  recoverTypedDataAddress,
  type TypedDataDefinition,
} from "viem";
import { getChainId, getTransactionReceipt, readContract } from "viem/actions";
import { abi as matchLedgerAbi } from "../../ledger/chain/artifacts/MatchLedger.json";

export interface BrowserCheck {
  name: string;
  ok: boolean;
  detail: string;
}

interface Bundle {
  chain: { chain_id: number; match_ledger: Address };
  result: { typed_data: TypedDataDefinition & { domain: { chainId: number } }; digest: Hex; signature: Hex; signer: Address };
  anchor: { batch_id: number; root: Hex; proof: Hex[]; tx_hash: Hex; block_number: number };
}

/** The StandardMerkleTree leaf of a bytes32 value: keccak256(keccak256(abi.encode(value))). */
export function leafOf(digest: Hex): Hex {
  return keccak256(keccak256(encodeAbiParameters([{ type: "bytes32" }], [digest])));
}

/** OpenZeppelin MerkleProof.processProof: hash sorted pairs from the leaf up. */
export function rootFrom(leaf: Hex, proof: Hex[]): Hex {
  return proof.reduce<Hex>((node, sibling) => {
    const [a, b] = BigInt(node) < BigInt(sibling) ? [node, sibling] : [sibling, node];
    return keccak256(concat([a, b]));
  }, leaf);
}

async function attempt(name: string, run: () => Promise<string>): Promise<BrowserCheck> {
  try {
    return { name, ok: true, detail: await run() };
  } catch (exc) {
    return { name, ok: false, detail: exc instanceof Error ? exc.message.split("\n")[0] : String(exc) };
  }
}

function must(condition: boolean, reason: string): void {
  if (!condition) throw new Error(reason);
}

/** Run the browser's checks on `bundle` against the chain at `rpcUrl`. */
export async function checkInBrowser(bundle: Bundle, rpcUrl: string): Promise<BrowserCheck[]> {
  const client = createClient({ transport: http(rpcUrl, { retryCount: 0, timeout: 10_000 }) });
  const ledger = bundle.chain.match_ledger;
  const { typed_data: typed, digest, signature, signer } = bundle.result;
  const { batch_id: batchId, proof } = bundle.anchor;
  const chainId = await getChainId(client);
  const read = (functionName: string, args: unknown[]) =>
    readContract(client, { address: ledger, abi: matchLedgerAbi, functionName, args } as Parameters<typeof readContract>[1]);

  const signatureCheck = await attempt("result-signature", async () => {
    must(chainId === bundle.chain.chain_id && typed.domain.chainId === chainId, `the RPC is chain ${chainId}, the result was signed for chain ${typed.domain.chainId}`);
    const recomputed = hashTypedData(typed);
    must(recomputed === digest, `the typed data hashes to ${recomputed}, not the bundle's digest ${digest}`);
    const recovered = await recoverTypedDataAddress({ ...typed, signature });
    must(recovered.toLowerCase() === signer.toLowerCase(), `the signature recovers to ${recovered}, not the signer ${signer}`);
    const anchoredAt = (await read("batchAnchorBlock", [BigInt(batchId)])) as bigint;
    must(anchoredAt > 0n, `batch ${batchId} is not anchored on MatchLedger ${ledger}`);
    const registered = (await read("wasSignerAt", [signer, Number(anchoredAt)])) as boolean;
    must(registered, `${signer} was not a registered signer at block ${anchoredAt}`);
    return `the EIP-712 digest recomputes, the signature recovers to ${signer}, a signer registered on MatchLedger at block ${anchoredAt}`;
  });
  const proofCheck = await attempt("merkle-proof", async () => {
    const root = rootFrom(leafOf(digest), proof);
    const onChain = (await read("batchRoot", [BigInt(batchId)])) as Hex;
    must(root === onChain, `the proof leads to ${root}, but batch ${batchId}'s root on-chain is ${onChain}`);
    const valid = (await read("verifyResult", [BigInt(batchId), digest, proof])) as boolean;
    must(valid, "MatchLedger.verifyResult answers false");
    return `the proof (${proof.length} hashes) leads from the digest to batch ${batchId}'s on-chain root ${root}; verifyResult agrees`;
  });
  return [signatureCheck, proofCheck];
}

/** The anchoring transaction as the chain reports it. */
export async function anchorTransaction(rpcUrl: string, txHash: Hex): Promise<{ status: string; blockNumber: bigint; from: Address }> {
  const client = createClient({ transport: http(rpcUrl, { retryCount: 0, timeout: 10_000 }) });
  const receipt = await getTransactionReceipt(client, { hash: txHash });
  return { status: receipt.status, blockNumber: receipt.blockNumber, from: receipt.from };
}

// Audit: enter a match id or drop a bundle file. The server runs the one verifier (metaledger
// verify) and the page says so; this browser also checks the signature and the Merkle proof
// against the chain itself; then a step-by-step replay of the match and the anchoring
// transaction and batch.

import { api, parseExact } from "../api";
import { anchorTransaction, type BrowserCheck, checkInBrowser } from "../chaincheck";
import { indexOf } from "../catalogue";
import { fill, h, short } from "../dom";
import { action, busy } from "../ui";
import { renderBoard } from "./boards";

/** What each check of the verifier means (docs/verification.md). */
const MEANINGS: Record<string, string> = {
  "bundle-format": "the bundle is a MetaLedger match bundle",
  "chain-id": "the chain answering is the one the result was signed for",
  "eip712-domain": "the signed domain is MetaLedger's, on this chain and contract",
  "result-digest": "the signed digest is the hash of the result as shown",
  signature: "the operator's signature is over that digest",
  "merkle-proof": "the result is a leaf of a batch whose root is on-chain",
  "batch-hash-chain": "no batch was dropped or rewritten since the deployment",
  "signer-registered": "the signer was registered on MatchLedger when the batch was anchored",
  "seed-commitments": "the shuffle came from the three committed secrets; no party chose it",
  decks: "the decks played are the ones committed and signed",
  ownership: "each player held every card of their deck at the pinned block",
  "transcript-hash": "the transcript is the one the result signs",
  replay: "replaying every move on the engine gives the signed final state and winner",
  "seat-authorizations": "each player's wallet authorized their seat, deck, seed commitment and session key",
  "player-signatures": "every move was signed by its player's session key, in order, on the one entry hash chain (format 2: each with the operator's receipt)",
  "players-acknowledged": "which players signed the end of the transcript (after that, the operator's word)",
  "batch-leaves": "the batch holds this result once and no other result for the match",
  "result-signature": "this browser recomputed the EIP-712 digest, recovered the signer and asked MatchLedger whether it was registered",
};

interface ServerAudit {
  verifier: string;
  rpc_url: string;
  ok: boolean;
  checks: { name: string; ok: boolean; detail: string }[];
}

interface ReplayStep {
  total: number;
  step: number;
  actions: { index: number; seat: number | null; label: string }[];
  observation: Record<string, unknown>;
}

type Bundle = Record<string, any>;

function rpcUrl(): string {
  return document.querySelector<HTMLMetaElement>('meta[name="metaledger-rpc-url"]')?.content ?? "";
}

function checkList(id: string, checks: (BrowserCheck | { name: string; ok: boolean; detail: string })[]): HTMLElement {
  return h(
    "ul",
    { class: "checks", id },
    ...checks.map((c) =>
      h(
        "li",
        { class: c.ok ? "ok" : "bad", "data-check": c.name, "data-ok": c.ok ? "1" : "0" },
        h("span", { class: "mark", "aria-label": c.ok ? "passed" : "failed" }, c.ok ? "✓" : "✗"),
        " ",
        h("b", null, c.name),
        " — ",
        MEANINGS[c.name] ?? "",
        h("div", { class: "detail" }, c.detail),
      ),
    ),
  );
}

export async function renderAudit(main: HTMLElement, params: URLSearchParams): Promise<void> {
  main.append(h("h1", null, "Audit a match"));
  const idInput = h("input", { id: "audit-match", type: "text", placeholder: "0x… match id", size: 68, "aria-label": "match id", value: params.get("match") ?? "" });
  const fileInput = h("input", { id: "audit-file", type: "file", accept: "application/json,.json", "aria-label": "bundle file" });
  const drop = h("label", { class: "drop", id: "audit-drop", tabindex: "0" }, "Drop a bundle file here, or choose one: ", fileInput);
  const out = h("div", { id: "audit-out" });
  const loadById = action("Check", async () => {
    const id = idInput.value.trim().toLowerCase();
    await audit(out, await api<Bundle>("GET", `/matches/${encodeURIComponent(id)}/bundle`));
  }, { id: "audit-load" });
  const fromFile = async (file: File) => {
    let bundle: Bundle;
    try {
      bundle = parseExact(await file.text());
    } catch (exc) {
      throw new Error(`${file.name} is not JSON: ${exc instanceof Error ? exc.message : exc}`);
    }
    await audit(out, bundle);
  };
  fileInput.addEventListener("change", () => {
    const file = fileInput.files?.[0];
    if (file) void busy(null, () => fromFile(file));
  });
  drop.addEventListener("dragover", (e) => {
    e.preventDefault();
    drop.classList.add("over");
  });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", (e) => {
    e.preventDefault();
    drop.classList.remove("over");
    const file = e.dataTransfer?.files?.[0];
    if (file) void busy(null, () => fromFile(file));
  });
  idInput.addEventListener("keydown", (e) => {
    if (e.key === "Enter") loadById.click();
  });
  main.append(
    h("p", null, "Every check below is re-run from the bundle and the chain; nothing is taken from the operator's database."),
    h("div", { class: "row" }, h("label", null, "Match id ", idInput), loadById),
    drop,
    out,
  );
  if (params.get("match")) loadById.click();
}

async function audit(out: HTMLElement, bundle: Bundle): Promise<void> {
  const rpc = rpcUrl();
  fill(out, h("p", { class: "progress" }, h("progress", { "aria-label": "checking" }), " Checking…"));
  const [server, browser] = await Promise.all([
    api<ServerAudit>("POST", "/audit/verify", bundle),
    rpc
      ? checkInBrowser(bundle as never, rpc).catch((exc): BrowserCheck[] => [{ name: "result-signature", ok: false, detail: String(exc) }, { name: "merkle-proof", ok: false, detail: "not checked" }])
      : Promise.resolve([]),
  ]);
  const anchor = bundle.anchor ?? {};
  const tx = h("span", { id: "anchor-tx-status" }, "asking the chain…");
  const passed = server.ok && browser.every((c) => c.ok);
  fill(
    out,
    h("h2", { id: "audit-verdict", class: passed ? "ok" : "bad", "data-ok": passed ? "1" : "0" }, passed ? "✓ Every check passed" : "✗ A check failed"),
    h("section", null, h("h3", null, "Checked by the server"), h("p", { class: "note", id: "server-label" }, `${server.verifier} (${server.rpc_url}).`), checkList("server-checks", server.checks)),
    h(
      "section",
      null,
      h("h3", null, "Checked in this browser"),
      rpc
        ? [h("p", { class: "note" }, `With viem against ${rpc}, without the server.`), checkList("browser-checks", browser)]
        : h("p", { class: "note", id: "browser-not-run" }, "Not run: this server names no chain RPC for the browser (METALEDGER_WEB_RPC_URL). Run metaledger verify yourself."),
    ),
    h(
      "section",
      { id: "anchoring" },
      h("h3", null, "Anchoring"),
      h(
        "p",
        null,
        `Batch ${anchor.batch_id} (root `,
        h("code", null, short(String(anchor.root ?? ""))),
        `, ${anchor.count} results) anchored by transaction `,
        h("code", { id: "anchor-tx" }, String(anchor.tx_hash)),
        ` in block ${anchor.block_number}: `,
        tx,
      ),
    ),
    h("section", { id: "replay" }, h("h3", null, "Replay")),
  );
  if (!rpc) fill(tx, "not asked (no chain RPC for the browser)");
  else void anchorTransaction(rpc, anchor.tx_hash)
    .then((r) => fill(tx, `${r.status} in block ${r.blockNumber}, sent by ${short(r.from)}`))
    .catch((exc) => fill(tx, `the chain does not know it (${String(exc).split("\n")[0]})`));
  if (bundle.transcript) await replayer(out.querySelector("#replay") as HTMLElement, bundle.transcript);
}

async function replayer(box: HTMLElement, transcript: Record<string, unknown>): Promise<void> {
  // a signed transcript (metaledger.transcript/2) carries the engine's under "engine"
  const engine = (transcript.engine ?? transcript) as Record<string, unknown>;
  const cards = await indexOf(String(engine.game));
  const total = Array.isArray(engine.actions) ? engine.actions.length : 0;
  const slider = h("input", { id: "replay-step", type: "range", min: 0, max: total, value: 0, "aria-label": "step" });
  const where = h("span", { id: "replay-where" });
  const board = h("div", { id: "replay-board" });
  const list = h("ol", { class: "log", start: 0 });
  let labels: ReplayStep["actions"] = [];
  const show = async (step: number) => {
    const r = await api<ReplayStep>("POST", "/audit/replay", { transcript, step });
    labels = r.actions;
    slider.value = String(r.step);
    fill(where, `step ${r.step} of ${r.total}${r.step > 0 ? `: ${labels[r.step - 1]?.label ?? ""}` : " (the deal)"}`);
    fill(board, renderBoard(r.observation, null, cards));
    fill(list, labels.map((a) => h("li", { class: a.index === r.step - 1 ? "current" : "" }, `player ${(a.seat ?? 0) + 1}: ${a.label}`)));
  };
  const go = (to: () => number) => action("", async () => show(Math.min(total, Math.max(0, to()))));
  const first = go(() => 0);
  const back = go(() => Number(slider.value) - 1);
  const next = go(() => Number(slider.value) + 1);
  const last = go(() => total);
  first.textContent = "⏮ first";
  back.textContent = "◀ back";
  next.textContent = "next ▶";
  last.textContent = "last ⏭";
  next.id = "replay-next";
  last.id = "replay-last";
  slider.addEventListener("change", () => void busy(null, () => show(Number(slider.value))));
  box.append(h("div", { class: "row" }, first, back, slider, next, last), where, h("div", { class: "play" }, board, h("aside", null, list)));
  await show(0);
}

// Market: the offer book (docs/trading.md). Offers by card and by wallet with the API's filters;
// make an offer (the wallet signs the EIP-712 Offer, eth_signTypedData_v4), fill one (the wallet
// sends the fill, eth_sendTransaction, and the page waits for the receipt), withdraw it from the
// book (a signed OfferWithdrawal) or cancel it on-chain (cancel(nonce)); the wallet's trades.
// The exchange's approval (setApprovalForAll) is asked for only when the chain says it is
// missing, and what it grants is said in words before the wallet prompt. The wallet's cards
// follow its pushed balance changes (GET /wallets/{address}/events).

import { type Address, formatEther, type Hex, parseEther } from "viem";
import { api } from "../api";
import { type Card, type Collection, type Holding, cardsOf, listGames } from "../catalogue";
import { append, fill, h, short } from "../dom";
import { cardFace } from "../faces";
import { listen, watch } from "../live";
import { session } from "../session";
import { action, busy, showError } from "../ui";
import { balanceOf, isApprovedForAll, sendTransaction, signTypedData, waitForReceipt } from "../wallet";

interface CardAmount {
  token_id: string;
  amount: number | string;
  game: string | null;
  card_id: string | null;
  name: string | null;
}

interface Offer {
  offer_hash: Hex;
  status: string;
  status_reason: string | null;
  maker: string;
  taker: string | null;
  given: CardAmount[];
  asked: CardAmount[];
  asked_wei: string;
  expiry: number;
  nonce: string;
  fill: { block_number: number; tx_hash: string; taker: string } | null;
}

interface Tx {
  to: Address;
  data: Hex;
  value: string;
}

type Field = { name: string; type: string };

interface Exchange {
  chain_id: number;
  exchange: Address;
  card_token: Address;
  domain: { name: string; version: string; chainId: number; verifyingContract: Address };
  types: Record<string, Field[]>;
  max_ids_per_side: number;
  statuses: string[];
  approval_transaction: Tx;
}

interface Leg {
  cards: CardAmount[];
  wei: string;
}

interface FillPlan {
  transaction: Tx;
  taker_gives: Leg;
  taker_gets: Leg;
  approval: { needed: boolean; transaction: Tx };
  simulation: { ok: boolean; error: { name: string; args: Record<string, unknown> } | null };
}

interface Trade {
  offer_hash: string;
  maker: string;
  taker: string;
  block_number: number;
  tx_hash: string;
  maker_gave: CardAmount[] | null;
  taker_gave: CardAmount[] | null;
  wei: string;
}

const ZERO = "0x0000000000000000000000000000000000000000";
const EXPIRIES: [string, number][] = [
  ["1 hour", 3600],
  ["1 day", 86_400],
  ["7 days", 7 * 86_400],
  ["30 days", 30 * 86_400],
];

let exchangeInfo: Promise<Exchange> | null = null;
function exchange(): Promise<Exchange> {
  exchangeInfo ??= api<Exchange>("GET", "/exchange");
  return exchangeInfo;
}

const same = (a: string | null | undefined, b: string | null | undefined) => !!a && !!b && a.toLowerCase() === b.toLowerCase();

/** "2 × Darkseid" with the card's face, for each card of a side. */
function cardList(cards: CardAmount[]): HTMLElement {
  return h(
    "ul",
    { class: "legs" },
    cards.map((c) =>
      h("li", { "data-token": c.token_id }, cardFace(c.token_id, c.name ?? c.card_id ?? "card", 48), ` ${c.amount} × ${c.name ?? c.card_id ?? short(c.token_id)}`),
    ),
  );
}

function wei(value: string): string | null {
  return value && value !== "0" ? `${formatEther(BigInt(value))} ETH` : null;
}

function describeLeg(leg: Leg): string {
  const parts = leg.cards.map((c) => `${c.amount} × ${c.name ?? c.card_id}`);
  const eth = wei(leg.wei);
  if (eth) parts.push(eth);
  return parts.length ? parts.join(", ") : "nothing";
}

/** The progress of one wallet flow, step by step. */
class Progress {
  constructor(private readonly box: HTMLElement) {}

  start(title: string): void {
    fill(this.box, h("h3", null, title), h("ol", { class: "steps" }));
    this.box.hidden = false;
    this.box.dataset.state = "running";
  }

  step(text: string, state: "wait" | "done" | "bad" = "wait", extra?: Node): HTMLElement {
    const list = this.box.querySelector("ol") ?? this.box.appendChild(h("ol", { class: "steps" }));
    for (const li of list.querySelectorAll("li[data-state='wait']")) li.setAttribute("data-state", "done");
    const mark = state === "wait" ? "…" : state === "done" ? "✓" : "✗";
    const li = h("li", { "data-state": state }, h("span", { class: "mark" }, mark), " ", text, extra ? " " : null, extra ?? null);
    list.append(li);
    return li;
  }

  finish(ok: boolean, text: string): void {
    this.step(text, ok ? "done" : "bad");
    this.box.dataset.state = ok ? "done" : "failed";
  }

  /** `flow`, whose error (a refused request, a rejected signature) also ends a box it left
   * "running" as failed, with the error's first line; the error goes on to the page's message. */
  guard(flow: () => Promise<void>): () => Promise<void> {
    return async () => {
      try {
        await flow();
      } catch (exc) {
        if (this.box.dataset.state === "running") this.finish(false, `Stopped: ${firstLine(exc)}`);
        throw exc;
      }
    };
  }
}

/** The first line of an error's message (a problem's title and detail come first). */
function firstLine(exc: unknown): string {
  const text = exc instanceof Error ? exc.message : String(exc);
  return text.split("\n")[0] || "the flow was interrupted";
}

/** Send `tx` from the wallet and wait for its receipt, each step shown; whether it succeeded. */
async function sendAndWait(progress: Progress, tx: Tx, what: string): Promise<boolean> {
  progress.step(`Confirm the ${what} in your wallet`);
  const hash = await sendTransaction({ to: tx.to, data: tx.data, value: BigInt(tx.value || "0") });
  progress.step(`${what} sent; waiting for it to be mined`, "wait", h("code", { "data-tx": hash }, short(hash)));
  const receipt = await waitForReceipt(hash);
  if (receipt.status !== "success") {
    progress.finish(false, `${what} reverted in block ${receipt.blockNumber}`);
    return false;
  }
  progress.step(`${what} mined in block ${receipt.blockNumber}`, "done");
  return true;
}

/** Say in words what approving the exchange grants, then (only on "Approve") ask the wallet;
 * whether the exchange is approved afterwards. */
function askApproval(box: HTMLElement, progress: Progress, ex: Exchange, why: string): Promise<boolean> {
  return new Promise((resolve) => {
    const close = (ok: boolean) => {
      box.hidden = true;
      fill(box);
      resolve(ok);
    };
    fill(
      box,
      h("h3", null, "The exchange needs your approval"),
      h("p", null, why),
      h(
        "p",
        { id: "approval-words" },
        `Approving lets the exchange contract ${ex.exchange} move any of your cards on the card token ${ex.card_token}: every card you hold, in any amount, without asking you again. `,
        "It only ever does so inside a fill, and only as an offer you signed says: the cards you listed, to the taker who pays what you asked, once, before the offer expires. ",
        "It grants nothing to anyone else. You can take it back at any time (setApprovalForAll(exchange, false)); your open offers then stop being fillable.",
      ),
      h("p", { class: "note" }, "Your wallet will ask you to send one transaction: CardToken.setApprovalForAll(exchange, true)."),
      h(
        "div",
        { class: "row" },
        action(
          "Approve the exchange",
          async () => {
            box.hidden = true;
            try {
              const ok = await sendAndWait(progress, ex.approval_transaction, "approval");
              close(ok && (await isApprovedForAll(ex.card_token, ex.exchange)));
            } catch (exc) {
              close(false);
              throw exc;
            }
          },
          { id: "approve-exchange" },
        ),
        action("Not now", async () => close(false), { id: "approval-decline", class: "step" }),
      ),
    );
    box.hidden = false;
    box.querySelector<HTMLButtonElement>("#approve-exchange")?.focus();
  });
}

export async function renderMarket(main: HTMLElement, params: URLSearchParams): Promise<void> {
  const me = session.address();
  const games = await listGames();
  const catalogues = new Map<string, Card[]>();
  for (const g of games) catalogues.set(g.name, await cardsOf(g.name));

  main.append(h("h1", null, "Market"));
  const progressBox = h("section", { id: "progress", class: "progress", "aria-live": "polite", hidden: true });
  const approvalBox = h("section", { id: "approval", class: "approval", role: "dialog", "aria-label": "approval", hidden: true });
  const progress = new Progress(progressBox);
  main.append(approvalBox, progressBox);

  // -- the book: filters and the offers ---------------------------------------------------
  const option = (value: string, label: string) => h("option", { value }, label);
  const gameSel = h("select", { id: "book-game", "aria-label": "game" }, option("", "every game"), ...games.map((g) => option(g.name, g.title)));
  const cardSel = h("select", { id: "book-card", "aria-label": "card" }, option("", "any card"));
  const sideSel = h("select", { id: "book-side", "aria-label": "side" }, option("", "selling or asking"), option("selling", "selling it"), option("asking", "asking for it"));
  const statusSel = h("select", { id: "book-status", "aria-label": "status" }, option("open", "open"), option("any", "any status"));
  const makerInput = h("input", { id: "book-maker", type: "text", placeholder: "0x… (any wallet)", "aria-label": "maker", size: 24, spellcheck: "false" });
  const takerFilter = h("input", { id: "book-taker", type: "text", placeholder: "0x… (any)", "aria-label": "named taker", size: 24, spellcheck: "false" });
  const sortSel = h("select", { id: "book-sort", "aria-label": "sort" }, option("newest", "newest"), option("oldest", "oldest"), option("price_asc", "price ↑ (ETH asks)"), option("price_desc", "price ↓ (ETH asks)"));
  const offersList = h("ul", { id: "offers", class: "offers" });
  const more = h("div", { class: "row" });
  const bookStatus = h("p", { class: "status", "aria-live": "polite" });

  const fillCards = () => {
    const chosen = cardSel.value;
    const pool = gameSel.value ? (catalogues.get(gameSel.value) ?? []) : [...catalogues.values()].flat();
    fill(cardSel, option("", "any card"), ...pool.map((c) => option(BigInt(c.token_id).toString(), `${c.name}${c.data.subtitle ? ` – ${c.data.subtitle}` : ""} (${c.card_id})`)));
    cardSel.value = chosen;
  };
  for (const status of ["filled", "withdrawn", "cancelled", "expired", "unfillable"]) statusSel.append(option(status, status));
  statusSel.value = params.get("status") ?? "open";
  gameSel.value = params.get("game") ?? "";
  fillCards();
  cardSel.value = params.get("card") ? BigInt(params.get("card") as string).toString() : "";
  makerInput.value = params.get("maker") ?? "";
  takerFilter.value = params.get("taker") ?? "";

  const query = (cursor?: string) => {
    const q = new URLSearchParams({ status: statusSel.value, sort: sortSel.value, limit: "20" });
    if (gameSel.value) q.set("game", gameSel.value);
    if (cardSel.value) q.set("card", cardSel.value);
    if (cardSel.value && sideSel.value) q.set("side", sideSel.value);
    if (makerInput.value.trim()) q.set("maker", makerInput.value.trim());
    if (takerFilter.value.trim()) q.set("taker", takerFilter.value.trim());
    if (cursor) q.set("cursor", cursor);
    return q;
  };

  const offerItem = (o: Offer): HTMLElement => {
    const mine = same(o.maker, me);
    const buttons: HTMLElement[] = [];
    if (me && !mine && o.status === "open" && (!o.taker || same(o.taker, me))) {
      buttons.push(action("Fill", progress.guard(() => fillOffer(o)), { class: "fill", "data-offer": o.offer_hash }));
    }
    if (mine && (o.status === "open" || o.status === "unfillable")) {
      buttons.push(action("Withdraw", progress.guard(() => withdraw(o)), { class: "withdraw step" }));
    }
    if (mine && ["open", "unfillable", "withdrawn"].includes(o.status)) {
      buttons.push(action("Cancel on-chain", progress.guard(() => cancelOnChain(o)), { class: "cancel step" }));
    }
    const eth = wei(o.asked_wei);
    return h(
      "li",
      { class: "offer", "data-offer": o.offer_hash, "data-status": o.status, "data-maker": o.maker },
      h("div", { class: "side-give" }, h("h4", null, "Gives"), cardList(o.given)),
      h("div", { class: "side-ask" }, h("h4", null, "Asks"), o.asked.length ? cardList(o.asked) : null, eth ? h("p", { class: "eth" }, eth) : null),
      h(
        "p",
        { class: "meta" },
        `${o.status}${o.status_reason && o.status_reason !== o.status ? ` (${o.status_reason})` : ""} · by `,
        h("span", { title: o.maker }, mine ? "you" : short(o.maker)),
        o.taker ? ` · only for ${same(o.taker, me) ? "you" : short(o.taker)}` : "",
        ` · expires ${new Date(o.expiry * 1000).toLocaleString()} · nonce ${o.nonce}`,
        o.fill ? ` · filled in block ${o.fill.block_number}` : "",
      ),
      buttons.length ? h("div", { class: "row" }, buttons) : null,
    );
  };

  const showBook = async (cursor?: string) => {
    const page = await api<{ offers: Offer[]; next_cursor: string | null }>("GET", `/offers?${query(cursor)}`);
    if (!cursor) fill(offersList);
    append(offersList, page.offers.map(offerItem));
    fill(bookStatus, offersList.childElementCount ? `${offersList.childElementCount} offers` : "No offers match.");
    fill(more, page.next_cursor ? action("More offers", () => showBook(page.next_cursor as string), { id: "book-more", class: "step" }) : null);
  };
  // the side filter needs a card (the API's rule)
  const sideNeedsCard = () => (sideSel.disabled = !cardSel.value);
  gameSel.addEventListener("change", () => {
    fillCards();
    sideNeedsCard();
  });
  cardSel.addEventListener("change", sideNeedsCard);
  sideNeedsCard();
  const bookForm = h(
    "form",
    { id: "book-filters", class: "filters" },
    h("label", null, "Game ", gameSel),
    h("label", null, "Card ", cardSel),
    h("label", null, "Side ", sideSel),
    h("label", null, "Status ", statusSel),
    h("label", null, "Maker ", makerInput),
    me ? h("button", { type: "button", class: "step", id: "book-mine", onclick: () => { makerInput.value = me; bookForm.requestSubmit(); } }, "Mine") : null,
    h("label", null, "Only for ", takerFilter),
    h("label", null, "Sort ", sortSel),
    h("button", { type: "submit", id: "book-show" }, "Show offers"),
  );
  bookForm.addEventListener("submit", (event) => {
    event.preventDefault();
    void busy(bookForm.querySelector<HTMLButtonElement>("#book-show"), () => showBook());
  });
  main.append(h("section", { id: "book" }, h("h2", null, "Offers"), bookForm, bookStatus, offersList, more));

  if (!me) {
    main.append(h("p", { class: "note" }, "Sign in with your wallet (top right) to make, fill or cancel offers and to see your trades."));
    await showBook();
    return;
  }

  // -- your wallet: cards (pushed), ETH, trades ----------------------------------------------
  let holdings: Holding[] = [];
  const walletLine = h("p", { id: "wallet-line", class: "status" });
  const holdingsList = h("ul", { id: "my-cards", class: "holdings" });
  const tradesList = h("ul", { id: "trades", class: "trades" });
  const showWallet = async () => {
    const eth = await balanceOf();
    const copies = holdings.reduce((n, c) => n + c.balance, 0);
    walletLine.dataset.wei = eth.toString();
    const [whole, fraction = ""] = formatEther(eth).split(".");
    fill(walletLine, `${whole}${fraction ? `.${fraction.slice(0, 4)}` : ""} ETH · ${copies} cards`);
  };
  const showHoldings = () =>
    fill(
      holdingsList,
      holdings
        .filter((c) => c.balance > 0)
        .map((c) => h("li", { "data-card": `${c.game}:${c.card_id}`, "data-copies": c.balance }, cardFace(c.token_id, c.name, 32), ` ${c.balance} × ${c.name}`)),
    );
  const showTrades = async () => {
    const page = await api<{ trades: Trade[] }>("GET", `/wallets/${me}/trades?limit=20`);
    fill(
      tradesList,
      page.trades.length
        ? page.trades.map((t) => {
            const maker = same(t.maker, me);
            const gave = (maker ? t.maker_gave : t.taker_gave) ?? [];
            const got = (maker ? t.taker_gave : t.maker_gave) ?? [];
            return h(
              "li",
              { "data-tx": t.tx_hash, "data-offer": t.offer_hash },
              `Block ${t.block_number}, as ${maker ? "maker" : "taker"}: gave ${describeLeg({ cards: gave, wei: maker ? "0" : t.wei })}, got ${describeLeg({ cards: got, wei: maker ? t.wei : "0" })}`,
              " · ",
              h("code", { title: t.tx_hash }, short(t.tx_hash)),
            );
          })
        : h("li", { class: "note" }, "No trades yet."),
    );
  };

  // -- make an offer ----------------------------------------------------------------------
  const giving = new Map<string, { card: Card; copies: number }>();
  const asking = new Map<string, { card: Card; copies: number }>();
  const makeGame = h("select", { id: "make-game", "aria-label": "game of the cards to pick" }, ...games.map((g) => option(g.name, g.title)));
  const giveSel = h("select", { id: "give-card", "aria-label": "a card you give" });
  const giveCopies = h("input", { id: "give-copies", type: "number", min: 1, value: 1, "aria-label": "copies you give", class: "copies-input" });
  const askSel = h("select", { id: "ask-card", "aria-label": "a card you ask for" });
  const askCopies = h("input", { id: "ask-copies", type: "number", min: 1, value: 1, "aria-label": "copies you ask for", class: "copies-input" });
  const askEth = h("input", { id: "ask-eth", type: "text", inputmode: "decimal", placeholder: "0", "aria-label": "ETH you ask for", size: 8 });
  const takerInput = h("input", { id: "make-taker", type: "text", placeholder: "0x… (anyone)", "aria-label": "only this taker", size: 24, spellcheck: "false" });
  const expirySel = h("select", { id: "make-expiry", "aria-label": "expires in" }, ...EXPIRIES.map(([label, s]) => option(String(s), label)));
  expirySel.value = "86400";
  const giveList = h("ul", { id: "give-list", class: "picked" });
  const askList = h("ul", { id: "ask-list", class: "picked" });

  const byToken = (tokenId: string) => [...catalogues.values()].flat().find((c) => BigInt(c.token_id) === BigInt(tokenId));
  const fillPickers = () => {
    const game = makeGame.value;
    const held = holdings.filter((c) => c.game === game && c.balance > 0);
    fill(giveSel, ...held.map((c) => option(BigInt(c.token_id).toString(), `${c.name} (${c.card_id}) · you hold ${c.balance}`)));
    fill(askSel, ...(catalogues.get(game) ?? []).map((c) => option(BigInt(c.token_id).toString(), `${c.name}${c.data.subtitle ? ` – ${c.data.subtitle}` : ""} (${c.card_id})`)));
  };
  const showPicked = () => {
    const row = (side: Map<string, { card: Card; copies: number }>, id: string, list: HTMLElement) =>
      fill(
        list,
        [...side.entries()].map(([token, { card, copies }]) =>
          h(
            "li",
            { "data-card": `${card.game}:${card.card_id}`, "data-copies": copies },
            cardFace(token, card.name, 32),
            ` ${copies} × ${card.name} `,
            h("button", { type: "button", class: "step", "aria-label": `remove ${card.name}`, onclick: () => { side.delete(token); showPicked(); } }, "remove"),
          ),
        ),
        side.size ? null : h("li", { class: "note" }, id === "give" ? "Nothing yet: add a card you hold." : "No cards (ETH only, or add one)."),
      );
    row(giving, "give", giveList);
    row(asking, "ask", askList);
  };
  const pick = (side: Map<string, { card: Card; copies: number }>, select: HTMLSelectElement, copies: HTMLInputElement) => {
    const card = select.value ? byToken(select.value) : undefined;
    const n = Number(copies.value);
    if (!card) return showError("Pick a card first.");
    if (!Number.isInteger(n) || n < 1) return showError("Copies: a whole number from 1.");
    side.set(card.token_id, { card, copies: (side.get(card.token_id)?.copies ?? 0) + n });
    showPicked();
  };
  makeGame.addEventListener("change", fillPickers);

  const makeOffer = async () => {
    if (!giving.size) throw new Error("An offer gives at least one card: add a card you give.");
    let askedWei = 0n;
    try {
      askedWei = askEth.value.trim() ? parseEther(askEth.value.trim()) : 0n;
    } catch {
      throw new Error(`ETH asked: "${askEth.value}" is not an amount of ETH (e.g. 0.05).`);
    }
    if (askedWei < 0n) throw new Error("ETH asked: not below 0.");
    if (!asking.size && askedWei === 0n) throw new Error("Ask for something: a card or some ETH.");
    const taker = takerInput.value.trim() || ZERO;
    if (taker !== ZERO && !/^0x[0-9a-fA-F]{40}$/.test(taker)) throw new Error("Taker: an address 0x… (40 hex digits), or empty for anyone.");
    progress.start("Making an offer"); // at once: a stale "done" of the last flow must not show
    const ex = await exchange();
    progress.step("Checking the exchange's approval on the chain");
    if (!(await isApprovedForAll(ex.card_token, ex.exchange))) {
      const approved = await askApproval(approvalBox, progress, ex, "To put cards you give on offer, the exchange must be allowed to move them when someone fills it.");
      if (!approved) return progress.finish(false, "Not approved: the offer was not made.");
    } else progress.step("The exchange is approved already", "done");
    const { next_nonce } = await api<{ next_nonce: string }>("GET", `/wallets/${me}/offer-nonce`);
    const message = {
      maker: me as Address,
      taker: taker as Address,
      givenIds: [...giving.keys()].map((t) => BigInt(t)),
      givenAmounts: [...giving.values()].map((g) => BigInt(g.copies)),
      askedIds: [...asking.keys()].map((t) => BigInt(t)),
      askedAmounts: [...asking.values()].map((g) => BigInt(g.copies)),
      askedWei,
      expiry: BigInt(Math.floor(Date.now() / 1000) + Number(expirySel.value)),
      nonce: BigInt(next_nonce),
    };
    progress.step("Sign the offer in your wallet (typed data)");
    const signature = await signTypedData({ domain: ex.domain, types: { Offer: ex.types.Offer }, primaryType: "Offer", message });
    progress.step("Posting the signed offer to the book");
    const asText = Object.fromEntries(
      Object.entries(message).map(([k, v]) => [k, Array.isArray(v) ? v.map(String) : typeof v === "bigint" ? v.toString() : v]),
    );
    const created = await api<Offer>("POST", "/offers", { domain: ex.domain, offer: { ...asText, expiry: Number(message.expiry) }, signature });
    progress.finish(true, `Offer on the book: ${short(created.offer_hash)}`);
    progressBox.dataset.offer = created.offer_hash;
    giving.clear();
    asking.clear();
    askEth.value = "";
    takerInput.value = "";
    showPicked();
    await Promise.all([showBook(), showMine()]);
  };

  // -- fill, withdraw, cancel -------------------------------------------------------------
  async function fillOffer(o: Offer): Promise<void> {
    progress.start(`Filling offer ${short(o.offer_hash)}`);
    const ex = await exchange();
    const plan = await api<FillPlan>("GET", `/offers/${o.offer_hash}/fill?taker=${me}`);
    progress.step(`You give ${describeLeg(plan.taker_gives)}; you get ${describeLeg(plan.taker_gets)}`, "done");
    const error = plan.simulation.error;
    if (error && !(plan.approval.needed && error.name === "ERC1155MissingApprovalForAll")) {
      return progress.finish(false, `The fill would fail on the chain: ${error.name} ${JSON.stringify(error.args)}`);
    }
    if (plan.approval.needed) {
      const approved = await askApproval(approvalBox, progress, ex, "The cards this offer asks for leave your wallet in the fill: the exchange must be allowed to move them.");
      if (!approved) return progress.finish(false, "Not approved: the offer was not filled.");
    }
    const ok = await sendAndWait(progress, plan.transaction, "fill");
    if (ok) progress.finish(true, `Filled: you got ${describeLeg(plan.taker_gets)}`);
    await refreshAll();
  }

  async function withdraw(o: Offer): Promise<void> {
    progress.start(`Withdrawing offer ${short(o.offer_hash)}`);
    const ex = await exchange();
    progress.step("Sign the withdrawal in your wallet (typed data)");
    const signature = await signTypedData({
      domain: ex.domain,
      types: { OfferWithdrawal: ex.types.OfferWithdrawal },
      primaryType: "OfferWithdrawal",
      message: { offerHash: o.offer_hash },
    });
    await api("DELETE", `/offers/${o.offer_hash}`, { signature });
    progress.finish(true, "Withdrawn from the book. The signed offer stays valid on-chain until you cancel it there (Cancel on-chain).");
    await Promise.all([showBook(), showMine()]);
  }

  async function cancelOnChain(o: Offer): Promise<void> {
    progress.start(`Cancelling offer ${short(o.offer_hash)} on-chain`);
    const { transaction } = await api<{ transaction: Tx }>("GET", `/offers/${o.offer_hash}/cancel`);
    const ok = await sendAndWait(progress, transaction, `cancel(nonce ${o.nonce})`);
    if (ok) progress.finish(true, "Cancelled on-chain: nobody can fill it any more (the book shows it once indexed).");
    await refreshAll();
  }

  // -- your offers -------------------------------------------------------------------------
  const mineList = h("ul", { id: "my-offers", class: "offers" });
  const showMine = async () => {
    const page = await api<{ offers: Offer[] }>("GET", `/offers?status=any&maker=${me}&limit=50`);
    fill(mineList, page.offers.length ? page.offers.map(offerItem) : h("li", { class: "note" }, "You have made no offers."));
  };
  const refreshAll = async () => {
    await Promise.all([showBook(), showMine(), showTrades(), showWallet()]);
  };

  const makeForm = h(
    "form",
    { id: "make-offer", class: "make" },
    h("div", { class: "row" }, h("label", null, "Pick from ", makeGame)),
    h("fieldset", null, h("legend", null, "You give"), h("div", { class: "row" }, giveSel, giveCopies, h("button", { type: "button", id: "give-add", class: "step", onclick: () => pick(giving, giveSel, giveCopies) }, "Add")), giveList),
    h(
      "fieldset",
      null,
      h("legend", null, "You ask for"),
      h("div", { class: "row" }, askSel, askCopies, h("button", { type: "button", id: "ask-add", class: "step", onclick: () => pick(asking, askSel, askCopies) }, "Add")),
      askList,
      h("div", { class: "row" }, h("label", null, "and ETH ", askEth)),
    ),
    h("div", { class: "row" }, h("label", null, "Only this taker ", takerInput), h("label", null, "Expires in ", expirySel)),
    h("button", { type: "submit", id: "make-submit" }, "Sign and post the offer"),
  );
  makeForm.addEventListener("submit", (event) => {
    event.preventDefault();
    void busy(makeForm.querySelector<HTMLButtonElement>("#make-submit"), progress.guard(makeOffer));
  });

  main.append(
    h(
      "div",
      { class: "market-columns" },
      h("section", { id: "make" }, h("h2", null, "Make an offer"), makeForm),
      h("section", { id: "wallet" }, h("h2", null, "Your wallet"), walletLine, holdingsList, h("h2", null, "Your offers"), mineList, h("h2", null, "Your trades"), tradesList),
    ),
  );

  const takeHoldings = (cards: Holding[]) => {
    const changed = JSON.stringify(cards) !== JSON.stringify(holdings);
    holdings = cards;
    if (!changed) return;
    showHoldings();
    fillPickers();
    void refreshAll().catch(() => {});
  };
  takeHoldings((await api<Collection>("GET", `/wallets/${me}/cards`)).cards);
  showPicked();
  await refreshAll();
  const fallBack = () => {
    holdingsList.dataset.updates = "polling";
    watch(async () => takeHoldings((await api<Collection>("GET", `/wallets/${me}/cards`)).cards), 1000); // POLLING FALLBACK
  };
  const pushed = await listen(`/wallets/${me}/events`, (type, data) => {
    if (type === "cards") takeHoldings((JSON.parse(data) as Collection).cards);
    else if (type === "book") void refreshAll().catch(() => {});
  }, fallBack);
  if (pushed) holdingsList.dataset.updates = "pushed";
  else fallBack();
}

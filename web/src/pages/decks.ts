// Deck builder: pick cards from your collection for one game; the engine's deck-building rules
// are checked as the deck changes (POST /decks/check); save (ownership checked by the API at a
// pinned block), list and reopen your decks.

import { api } from "../api";
import { type Card, cardsOf, listGames } from "../catalogue";
import { fill, h, short } from "../dom";
import { cardFace } from "../faces";
import { navigate } from "../nav";
import { action, notify, requireSignIn } from "../ui";

interface Violation {
  rule: string;
  message: string;
  card: string | null;
}

interface DeckCheck {
  ok: boolean;
  deck_hash: string;
  required: Record<string, number>;
  violations: Violation[];
}

export interface Deck {
  id: string;
  game: string;
  deck_hash: string;
  cards: Record<string, number>;
  block_number: number;
  created_at: string;
}

interface Holding {
  game: string;
  card_id: string;
  balance: number;
}

/** How long the builder waits after a change before asking for the rule check. */
const CHECK_DELAY_MS = 120;

/** Your saved decks, newest first. */
export function myDecks(): Promise<Deck[]> {
  return api<Deck[]>("GET", "/decks");
}

/** A deck in one line: how many cards and when it was saved. */
export function describeDeck(d: Deck): string {
  const n = Object.values(d.cards).reduce((a, b) => a + b, 0);
  return `${n} cards · ${short(d.deck_hash)} · saved ${new Date(d.created_at).toLocaleString()} (block ${d.block_number})`;
}

export async function renderDecks(main: HTMLElement, params: URLSearchParams): Promise<void> {
  main.append(h("h1", null, "Decks"));
  const address = requireSignIn(main, "build decks from your cards");
  if (!address) return;
  const games = await listGames();
  const reopened = params.get("deck") ? await api<Deck>("GET", `/decks/${encodeURIComponent(params.get("deck") ?? "")}`) : null;
  const game = games.find((g) => g.name === (reopened?.game ?? params.get("game"))) ?? games[0];
  const holdings = await api<{ cards: Holding[] }>("GET", `/wallets/${address}/cards?game=${game.name}`);
  const held = new Map(holdings.cards.map((c) => [c.card_id, c.balance]));
  const cards = await cardsOf(game.name);
  const byId = new Map(cards.map((c) => [c.card_id, c]));
  const deck = new Map<string, number>(Object.entries(reopened?.cards ?? {}));

  const picker = h(
    "nav",
    { class: "tabs", "aria-label": "game" },
    ...games.map((g) =>
      h("a", { href: `/deck-builder?game=${g.name}`, "aria-current": g.name === game.name ? "page" : undefined }, g.title),
    ),
  );
  const rules = h("div", { id: "deck-rules", class: "rules", "aria-live": "polite" });
  const list = h("ul", { id: "deck-list", class: "deck-list" });
  const pool = h("ul", { id: "deck-pool", class: "pool" });
  const saved = h("ul", { id: "saved-decks", class: "saved" });
  const count = h("span", { id: "deck-count" });
  let timer = 0;
  let checking = 0;

  const check = async () => {
    const ticket = ++checking;
    if (deck.size === 0) {
      fill(rules, h("p", { class: "note" }, "Add cards to see the deck-building rules."));
      return;
    }
    const out = await api<DeckCheck>("POST", "/decks/check", { game: game.name, cards: Object.fromEntries(deck) });
    if (ticket !== checking) return; // a newer change is being checked
    const shortOf = Object.entries(out.required).filter(([c, n]) => (held.get(c) ?? 0) < n);
    fill(
      rules,
      out.ok
        ? h("p", { class: "ok", "data-ok": "1" }, "✓ The deck follows every deck-building rule of ", game.title, ".")
        : h("p", { class: "bad", "data-ok": "0" }, `✗ ${out.violations.length} rule(s) broken:`),
      h("ul", null, ...out.violations.map((v) => h("li", { "data-rule": v.rule }, v.message))),
      shortOf.length
        ? h("p", { class: "bad" }, "You hold too few copies of: ", shortOf.map(([c, n]) => `${byId.get(c)?.name ?? c} (${held.get(c) ?? 0}/${n})`).join(", "))
        : null,
    );
  };
  const changed = () => {
    const n = [...deck.values()].reduce((a, b) => a + b, 0);
    fill(count, `${n} cards`);
    fill(
      list,
      [...deck.entries()]
        .sort()
        .map(([id, n]) =>
          h("li", { "data-card": id }, `${n}× ${byId.get(id)?.name ?? id}`, " ", step(id, -1, byId.get(id)), step(id, +1, byId.get(id))),
        ),
    );
    window.clearTimeout(timer);
    timer = window.setTimeout(() => void check().catch((e) => fill(rules, h("p", { class: "bad" }, String(e.message ?? e)))), CHECK_DELAY_MS);
  };
  const step = (id: string, by: number, card?: Card) =>
    h(
      "button",
      {
        type: "button",
        class: "step",
        "aria-label": `${by > 0 ? "add" : "remove"} one ${card?.name ?? id}`,
        onclick: () => {
          const n = (deck.get(id) ?? 0) + by;
          if (n > 0) deck.set(id, n);
          else deck.delete(id);
          changed();
        },
      },
      by > 0 ? "+" : "−",
    );

  fill(
    pool,
    cards
      .filter((c) => (held.get(c.card_id) ?? 0) > 0)
      .map((c) =>
        h("li", { "data-card": c.card_id }, cardFace(c.token_id, c.name, 48), " ", h("span", null, `${c.name}`), h("span", { class: "meta" }, ` ${c.kind} · you hold ${held.get(c.card_id)}`), " ", step(c.card_id, +1, c)),
      ),
  );
  const starters = game.starter_decks.map((d, i) =>
    action(`Start from starter deck ${i + 1}`, async () => {
      deck.clear();
      for (const [c, n] of Object.entries(d)) deck.set(c, n);
      changed();
    }),
  );
  const save = action("Save deck", async () => {
    const out = await api<Deck>("POST", "/decks", { game: game.name, cards: Object.fromEntries(deck) });
    notify(`Deck saved: ownership checked at block ${out.block_number}.`);
    navigate(`/deck-builder?deck=${out.id}`);
  }, { id: "save-deck" });
  main.append(
    picker,
    h("div", { class: "builder" },
      h("section", null, h("h2", null, "Your ", game.title, " cards"), pool.childElementCount ? pool : h("p", { class: "note" }, "You hold no cards of this game."),
      ),
      h("section", null, h("h2", null, reopened ? "Deck (reopened)" : "Deck", " · ", count), h("div", { class: "row" }, ...starters, action("Clear", async () => { deck.clear(); changed(); })), list, rules, save),
    ),
    h("section", null, h("h2", null, "Saved ", game.title, " decks"), saved),
  );
  changed(); // the deck and its count render with the page, not after the saved list loads
  const mine = (await myDecks()).filter((d) => d.game === game.name);
  fill(
    saved,
    mine.length
      ? mine.map((d) => h("li", { "data-deck": d.id }, h("a", { href: `/deck-builder?deck=${d.id}` }, "Open"), " ", describeDeck(d), " ", h("a", { href: `/play?deck=${d.id}` }, "Play with it")))
      : h("li", { class: "note" }, "No saved decks yet."),
  );
}


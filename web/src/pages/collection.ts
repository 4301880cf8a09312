// Collection: every card the signed-in wallet holds, in every game, with its copies; filters
// by game, kind and name; each card's face. Kept up to date by the wallet's pushed balance
// changes (`GET /wallets/{address}/events`, server-sent events fed by the indexer); polling
// only as a fallback when the stream cannot be opened or drops.

import { api } from "../api";
import { type Card, type Collection, cardsOf, listGames } from "../catalogue";
import { fill, h } from "../dom";
import { cardFace } from "../faces";
import { listen, watch } from "../live";
import { requireSignIn } from "../ui";

/** How often the page re-reads the collection when no stream is open (POLLING FALLBACK). */
const FALLBACK_REFRESH_MS = 1000;

export async function renderCollection(main: HTMLElement): Promise<void> {
  main.append(h("h1", null, "Collection"));
  const address = requireSignIn(main, "see your cards");
  if (!address) return;
  const games = await listGames();
  const catalogues = new Map<string, Map<string, Card>>();
  for (const g of games) {
    catalogues.set(g.name, new Map((await cardsOf(g.name)).map((c) => [c.card_id, c])));
  }
  const gameFilter = h(
    "select",
    { id: "filter-game", "aria-label": "game" },
    h("option", { value: "" }, "every game"),
    ...games.map((g) => h("option", { value: g.name }, g.title)),
  );
  const kinds = [...new Set([...catalogues.values()].flatMap((m) => [...m.values()].map((c) => c.kind)))].sort();
  const kindFilter = h(
    "select",
    { id: "filter-kind", "aria-label": "kind" },
    h("option", { value: "" }, "every kind"),
    ...kinds.map((k) => h("option", { value: k }, k)),
  );
  const search = h("input", { id: "filter-name", type: "search", placeholder: "name", "aria-label": "name" });
  const status = h("p", { class: "status", "aria-live": "polite" });
  const grid = h("ul", { class: "cards", id: "collection" });
  main.append(
    h("div", { class: "filters" }, h("label", null, "Game ", gameFilter), h("label", null, "Kind ", kindFilter), h("label", null, "Name ", search)),
    status,
    grid,
  );
  const titles = new Map(games.map((g) => [g.name, g.title]));
  let latest: Collection | null = null;

  const show = () => {
    if (!latest) return;
    const wanted = search.value.trim().toLowerCase();
    const rows = latest.cards.filter((c) => {
      const card = catalogues.get(c.game)?.get(c.card_id);
      return (
        c.balance > 0 &&
        (!gameFilter.value || c.game === gameFilter.value) &&
        (!kindFilter.value || card?.kind === kindFilter.value) &&
        (!wanted || c.name.toLowerCase().includes(wanted) || c.card_id.toLowerCase().includes(wanted))
      );
    });
    const copies = rows.reduce((n, c) => n + c.balance, 0);
    fill(
      status,
      `${rows.length} designs, ${copies} copies · as of block ${latest.block_number} (${latest.source === "indexer" ? "indexed transfers" : "read from the chain"})`,
    );
    fill(
      grid,
      rows.map((c) => {
        const card = catalogues.get(c.game)?.get(c.card_id);
        return h(
          "li",
          { class: "card", "data-card": `${c.game}:${c.card_id}`, "data-copies": c.balance, tabindex: "0" },
          cardFace(c.token_id, c.name, 160),
          h("span", { class: "copies", title: "copies" }, `×${c.balance}`),
          h("strong", null, c.name),
          card?.data.subtitle ? h("span", { class: "subtitle" }, String(card.data.subtitle)) : null,
          h("span", { class: "meta" }, `${titles.get(c.game) ?? c.game} · ${card?.kind ?? ""} · ${c.card_id}`),
        );
      }),
    );
  };
  const take = (next: Collection) => {
    const changed = JSON.stringify(next.cards) !== JSON.stringify(latest?.cards);
    latest = next;
    if (changed) show();
    else fill(status, status.textContent?.replace(/block \d+/, `block ${next.block_number}`) ?? "");
  };
  const load = async () => take(await api<Collection>("GET", `/wallets/${address}/cards`));
  for (const input of [gameFilter, kindFilter]) input.addEventListener("change", show);
  search.addEventListener("input", show);
  await load();
  const fallBack = () => {
    grid.dataset.updates = "polling";
    watch(load, FALLBACK_REFRESH_MS);
  };
  const pushed = await listen(
    `/wallets/${address}/events`,
    (type, data) => {
      if (type === "cards") take(JSON.parse(data) as Collection);
    },
    fallBack,
  );
  if (pushed) grid.dataset.updates = "pushed";
  else fallBack();
}

// A board for each game, drawn from the viewer's observation (GET /matches/{id}/view): exactly
// what the rules let this player see — their hand, both fields, the opponent's visible cards,
// and the game's counters (MetaX MP/VP, MetaMasters Tokens, WISH HP/stars/AP and the Market).

import type { CardIndex } from "../catalogue";
import { h } from "../dom";

type Obs = Record<string, unknown>;
type Side = Record<string, unknown>;

/** Who a side is to the viewer (`seat` null: a spectator). */
function whose(p: number, seat: number | null): string {
  if (seat === null) return `Player ${p + 1}`;
  return p === seat ? "You" : "Opponent";
}

function stat(label: string, value: unknown, key?: string): HTMLElement {
  return h("span", { class: "stat", "data-stat": key ?? label.toLowerCase() }, h("b", null, label), " ", String(value));
}

function zone(title: string, items: (HTMLElement | string)[], key: string): HTMLElement {
  return h(
    "div",
    { class: "zone", "data-zone": key },
    h("h4", null, `${title} (${items.length})`),
    items.length ? h("ul", null, ...items.map((i) => (typeof i === "string" ? h("li", null, i) : i))) : h("p", { class: "empty" }, "—"),
  );
}

function cardItem(name: string, extra = "", attrs: Record<string, string> = {}): HTMLElement {
  return h("li", { class: "c", ...attrs }, h("span", { class: "n" }, name), extra ? h("span", { class: "x" }, ` ${extra}`) : null);
}

function metax(obs: Obs, seat: number | null, cards: CardIndex): HTMLElement[] {
  const sides = obs.players as Side[];
  const names = (zoneCards: unknown) => ((zoneCards as [unknown, number][] | null) ?? []).map(([, c]) => cardItem(cards.name(c)));
  return sides.map((s, p) =>
    h(
      "section",
      { class: "side", "data-side": p === seat ? "me" : "them" },
      h("h3", null, whose(p, seat), obs.active === p ? " · active" : ""),
      h("div", { class: "stats" }, stat("MP", s.mp), stat("VP", s.vp_count), stat("Deck", s.deck_count), stat("Hand", s.hand_count)),
      zone(
        "Characters",
        ((s.characters as (Side | null)[]) ?? []).map((c, slot) =>
          c
            ? cardItem(cards.name(c.card as number), `S/I/X ${(c.stats as number[]).join("/")}${c.pushed ? " · pushed" : ""}${(c.damage as unknown[]).length ? ` · ${(c.damage as unknown[]).length} damage` : ""}`)
            : cardItem(`slot ${slot + 1}: empty`),
        ),
        "characters",
      ),
      s.hand ? zone("Hand", names(s.hand), "hand") : null,
      zone("In play", names(s.in_play), "in-play"),
      zone("Discard", names(s.discard), "discard"),
    ),
  );
}

function metamasters(obs: Obs, seat: number | null, cards: CardIndex): HTMLElement[] {
  const sides = obs.players as Side[];
  return sides.map((s, p) =>
    h(
      "section",
      { class: "side", "data-side": p === seat ? "me" : "them" },
      h("h3", null, whose(p, seat), obs.active === p ? " · active" : ""),
      h("div", { class: "stats" }, stat("Tokens", (s.tokens as unknown[]).length, "tokens"), stat("Deck", s.deck), stat("Hand", s.hand_count)),
      zone("Tokens (HP)", (s.tokens as string[]).map((t) => cardItem(cards.name(t))), "tokens"),
      zone(
        "Actors",
        ((s.actors as (Side | null)[]) ?? []).map((a, slot) =>
          !a
            ? cardItem(`slot ${slot + 1}: empty`)
            : a.face_up
              ? cardItem(cards.name(a.card as string), `EGO ${a.ego} · INT ${a.int} · ${a.position}${(a.links as Side[]).length ? ` · links: ${(a.links as Side[]).map((l) => cards.name(l.card as string)).join(", ")}` : ""}`)
              : cardItem("face-down Actor"),
        ),
        "actors",
      ),
      zone(
        "Specials",
        ((s.specials as (Side | null)[]) ?? []).map((x, slot) =>
          !x ? cardItem(`slot ${slot + 1}: empty`) : x.face_up ? cardItem(cards.name(x.card as string)) : cardItem("face-down Special"),
        ),
        "specials",
      ),
      s.hand ? zone("Hand", (s.hand as Side[]).map((c) => cardItem(cards.name(c.card as string))), "hand") : null,
      zone("Trash", (s.trash as string[]).map((c) => cardItem(cards.name(c))), "trash"),
    ),
  );
}

function metaversus(obs: Obs, seat: number | null, cards: CardIndex): HTMLElement[] {
  const hp = obs.hp as number[];
  const maxHp = obs.max_hp as number[];
  const stars = obs.stars as number[];
  const out = [0, 1].map((p) =>
    h(
      "section",
      { class: "side", "data-side": p === seat ? "me" : "them" },
      h("h3", null, whose(p, seat), obs.active === p ? " · active" : "", ` · ${cards.name((obs.characters as string[])[p])}`),
      h(
        "div",
        { class: "stats" },
        stat("HP", `${hp[p]}/${maxHp[p]}`, "hp"),
        stat("Stars", stars[p], "stars"),
        obs.active === p ? stat("AP", obs.ap, "ap") : null,
        obs.active === p ? stat("Gems", obs.gems, "gems") : null,
        stat("Hand", (obs.hand_sizes as number[])[p]),
        stat("Deck", (obs.deck_sizes as number[])[p]),
      ),
      p === seat ? zone("Hand", ((obs.hand as string[]) ?? []).map((c) => cardItem(cards.name(c))), "hand") : null,
      zone("Play area", ((obs.play_areas as string[][])[p] ?? []).map((c) => cardItem(cards.name(c))), "play-area"),
      zone("Discard", ((obs.discards as string[][])[p] ?? []).map((c) => cardItem(cards.name(c))), "discard"),
    ),
  );
  out.push(
    h(
      "section",
      { class: "market", "data-zone": "market" },
      h("h3", null, "Market"),
      h("ul", null, ...(obs.market as Side[]).map((m) => cardItem(cards.name(m.card as string), `${m.price} gems · ${m.stock} left`))),
    ),
  );
  return out;
}

const BOARDS: Record<string, (obs: Obs, seat: number | null, cards: CardIndex) => HTMLElement[]> = {
  metax,
  metamasters,
  metaversus,
};

/** The board of `obs` as `seat` sees it (null: a spectator). */
export function renderBoard(obs: Obs, seat: number | null, cards: CardIndex): HTMLElement {
  const draw = BOARDS[String(obs.game)];
  const phase = [obs.phase, typeof obs.prompt === "string" ? obs.prompt : (obs.prompt as Side | null)?.kind].filter(Boolean).join(" · ");
  return h(
    "div",
    { class: "board", "data-game": String(obs.game), "data-turn": String(obs.turn ?? "") },
    h("p", { class: "turn" }, `Turn ${obs.turn ?? 0}${phase ? ` · ${phase}` : ""}${obs.over ? " · over" : ""}`),
    ...(draw ? draw(obs, seat, cards) : [h("pre", null, JSON.stringify(obs, null, 1))]),
  );
}

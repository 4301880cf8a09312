// Games and their card designs (cached for the page's life): names by card id and by the
// engine's catalogue position, which observations use where they name cards by number.

import { api } from "./api";

export interface Game {
  name: string;
  title: string;
  ruleset_version: string;
  starter_decks: Record<string, number>[];
}

export interface Card {
  game: string;
  card_id: string;
  index: number;
  name: string;
  kind: string;
  token_id: string;
  data: Record<string, unknown>;
}

/** A card a wallet holds (`GET /wallets/{address}/cards`). */
export interface Holding {
  game: string;
  card_id: string;
  name: string;
  token_id: string;
  balance: number;
}

/** A wallet's collection, as read and as its event stream sends it. */
export interface Collection {
  block_number: number;
  source: string;
  cards: Holding[];
}

let games: Promise<Game[]> | null = null;
const cards = new Map<string, Promise<Card[]>>();

/** Every game the engine hosts. */
export function listGames(): Promise<Game[]> {
  games ??= api<Game[]>("GET", "/games");
  return games;
}

/** The card designs of `game`. */
export function cardsOf(game: string): Promise<Card[]> {
  let found = cards.get(game);
  if (!found) {
    found = api<Card[]>("GET", `/games/${encodeURIComponent(game)}/cards`);
    cards.set(game, found);
  }
  return found;
}

/** Look cards up by id or catalogue position. */
export class CardIndex {
  private readonly byId = new Map<string, Card>();
  private readonly byIndex = new Map<number, Card>();

  constructor(list: Card[]) {
    for (const c of list) {
      this.byId.set(c.card_id, c);
      this.byIndex.set(c.index, c);
    }
  }

  /** The card named by `ref` (a card id or a catalogue position). */
  get(ref: string | number): Card | undefined {
    return typeof ref === "number" ? this.byIndex.get(ref) : this.byId.get(ref);
  }

  /** A card's display name (its id when unknown). */
  name(ref: string | number): string {
    const c = this.get(ref);
    if (!c) return String(ref);
    const subtitle = c.data.subtitle ? ` – ${c.data.subtitle}` : "";
    return `${c.name}${subtitle}`;
  }
}

/** The card index of `game`. */
export async function indexOf(game: string): Promise<CardIndex> {
  return new CardIndex(await cardsOf(game));
}

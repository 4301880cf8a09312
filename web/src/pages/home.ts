// The front page: what each page is for.

import { h } from "../dom";
import { session } from "../session";

export async function renderHome(main: HTMLElement): Promise<void> {
  const address = session.address();
  main.append(
    h("h1", null, "MetaLedger"),
    h(
      "p",
      null,
      "Card tokens in your own wallet, matches on one deterministic rules engine, results signed and anchored on-chain so anyone can check them.",
    ),
    address
      ? h("p", null, "Signed in as ", h("code", null, address), ".")
      : h("p", { class: "note" }, "Sign in with your browser wallet (top right) to see your cards and play."),
    h(
      "ul",
      { class: "tiles" },
      h("li", null, h("a", { href: "/collection" }, "Collection"), " — every card you hold, in every game."),
      h("li", null, h("a", { href: "/deck-builder" }, "Decks"), " — build a deck from your cards; the rules are checked as you go."),
      h("li", null, h("a", { href: "/play" }, "Play"), " — a match against the bot or a person."),
      h("li", null, h("a", { href: "/market" }, "Market"), " — offers to trade cards."),
      h("li", null, h("a", { href: "/audit" }, "Audit"), " — check a finished match against the chain."),
    ),
  );
}

// Market: the offer book arrives with the trading issue (14); until the API has it, this page
// says so rather than pretending.

import { h } from "../dom";

export async function renderMarket(main: HTMLElement): Promise<void> {
  main.append(
    h("h1", null, "Market"),
    h("p", { class: "note", id: "market-missing" }, "The offer book is not in this API yet: offers to trade cards will appear here once it is."),
  );
}

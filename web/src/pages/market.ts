// Market: not built yet. The API has the offer book (docs/trading.md); until this page uses it,
// it says so rather than pretending.

import { h } from "../dom";

export async function renderMarket(main: HTMLElement): Promise<void> {
  main.append(
    h("h1", null, "Market"),
    h("p", { class: "note", id: "market-missing" }, "This page does not show the offer book yet. Meanwhile, make, list, fill and cancel offers with the command line: metaledger trade (docs/trading.md)."),
  );
}

// The app's shell: the account box (sign in / out), the router over the app's paths, and the
// pages. Links inside the app change the page without a reload; the back button works.

import { h, fill, short } from "./dom";
import { stopAll } from "./live";
import { renderAudit } from "./pages/audit";
import { renderCollection } from "./pages/collection";
import { renderDecks } from "./pages/decks";
import { renderHome } from "./pages/home";
import { renderMarket } from "./pages/market";
import { renderPlay } from "./pages/play";
import { session } from "./session";
import { action, clearMessage, showError } from "./ui";
import { discoverWallets, signIn, signOut } from "./wallet";

type Page = (main: HTMLElement, params: URLSearchParams) => Promise<void>;

const PAGES: Record<string, { title: string; render: Page }> = {
  "/": { title: "MetaLedger", render: renderHome },
  "/collection": { title: "Collection", render: renderCollection },
  "/deck-builder": { title: "Decks", render: renderDecks },
  "/play": { title: "Play", render: renderPlay },
  "/market": { title: "Market", render: renderMarket },
  "/audit": { title: "Audit", render: renderAudit },
};

async function renderAccount(): Promise<void> {
  const box = document.getElementById("account");
  if (!box) return;
  const s = session.current();
  if (s) {
    fill(
      box,
      h("span", { class: "address", title: s.address, "data-address": s.address }, short(s.address)),
      action("Sign out", async () => {
        await signOut();
      }),
    );
    return;
  }
  const wallets = await discoverWallets();
  if (wallets.length === 0) {
    fill(box, h("span", { class: "note" }, "No browser wallet found"));
    return;
  }
  fill(
    box,
    ...wallets.map((w) =>
      action(`Sign in with ${w.info.name}`, async () => {
        await signIn(w);
      }),
    ),
  );
}

async function route(): Promise<void> {
  stopAll();
  clearMessage(true);
  const page = PAGES[location.pathname] ?? PAGES["/"];
  document.title = page.title === "MetaLedger" ? page.title : `${page.title} · MetaLedger`;
  for (const link of document.querySelectorAll<HTMLAnchorElement>("header nav a")) {
    link.toggleAttribute("aria-current", link.pathname === location.pathname);
    if (link.pathname === location.pathname) link.setAttribute("aria-current", "page");
  }
  const main = document.getElementById("main") as HTMLElement;
  const fresh = h("main", { id: "main", tabindex: "-1" });
  main.replaceWith(fresh);
  try {
    await page.render(fresh, new URLSearchParams(location.search));
  } catch (exc) {
    showError(exc);
  }
  fresh.dataset.ready = "1";
}


document.addEventListener("click", (event) => {
  const link = (event.target as Element).closest?.("a");
  if (!link || link.target || link.origin !== location.origin || event.ctrlKey || event.metaKey) return;
  if (!(link.pathname in PAGES)) return;
  event.preventDefault();
  history.pushState(null, "", link.pathname + link.search);
  void route();
  (document.getElementById("main") as HTMLElement | null)?.focus();
});
window.addEventListener("popstate", () => void route());
window.addEventListener("metaledger:navigate", () => void route());
session.onChange(() => {
  void renderAccount();
  void route();
});
void renderAccount().catch(showError);
void route();

// Play: create a match (against the bot, or open for a person with a link to join), the seed
// commit-reveal done by the page, the board as this player sees it, legal actions as buttons,
// the log, the turn timer, resign, and the result's progress until it is anchored.

import { api, Problem } from "../api";
import { indexOf, listGames } from "../catalogue";
import { fill, h, short } from "../dom";
import { listen, watch } from "../live";
import { navigate } from "../nav";
import type { Hex, TypedDataDomain } from "viem";
import { commitOf, forgetSecret, hasSecret, secretFor } from "../seed";
import { authorizeSeat, hasSessionKey, receiptIsOperators, signEnd, signMove } from "../signedmoves";
import { action, busy, notify, requireSignIn, showError } from "../ui";
import { describeDeck, myDecks } from "./decks";
import { renderBoard } from "./boards";

interface Seat {
  seat: number;
  address: string;
  is_bot: boolean;
  deck_hash: Hex;
  seed_commit: string | null;
  revealed: boolean;
  acknowledged: boolean;
}

interface Match {
  id: Hex;
  game: string;
  ruleset_version: string;
  head_hash: Hex | null;
  entries: number;
  domain: TypedDataDomain;
  receipt_signer: string | null;
  status: string;
  version: number;
  current_player: number | null;
  turn_deadline: string | null;
  winner_seat: number | null;
  end_reason: string | null;
  seats: Seat[];
  your_seat: number | null;
  ownership_block: number | null;
}

interface Legal {
  action: (string | number)[];
  label: string;
}

interface Applied {
  index: number;
  seat: number;
  action: (string | number | null)[] | null;
  label: string;
  by_bot: boolean;
  entry_hash: Hex | null;
  receipt: Hex | null;
}

interface View {
  match: Match;
  seat: number;
  your_turn: boolean;
  observation: Record<string, unknown> | null;
  legal_actions: Legal[];
}

interface ActionOut {
  version: number;
  status: string;
  current_player: number | null;
  your_turn: boolean;
  winner_seat: number | null;
  end_reason: string | null;
  head_hash: Hex | null;
  applied: Applied[];
  legal_actions: Legal[];
  observation: Record<string, unknown> | null;
}

interface Result {
  digest: string;
  signature: string;
  signer: string;
  winner: string;
  batch_id: number | null;
}

/** Figures the browser tests read: click → updated board, in milliseconds. */
/** What the browser tests read: per move the click-to-board time, the POST round trip (signing
 * included), and its phases [sign, POST, draw] in ms. */
const metrics = ((window as unknown as { __metaledger?: { moves: number[]; fetches: number[]; phases: number[][] } }).__metaledger ??= { moves: [], fetches: [], phases: [] });
/** How often the page looks for the opponent's move or the anchoring (polling fallback, live.ts). */
const POLL_MS = 400;

/** Run `work` when the page is idle (within 500 ms at the latest). */
function idle(work: () => void): void {
  if (typeof requestIdleCallback === "function") requestIdleCallback(() => work(), { timeout: 500 });
  else setTimeout(work, 0);
}
/** With pushed updates, a slow re-read all the same (in case an event was missed). */
const PUSHED_SAFETY_POLL_MS = 5000;
/** How long after a move the page re-reads the turn deadline (unless another move comes first). */
const DEADLINE_REREAD_MS = 1500;

export async function renderPlay(main: HTMLElement, params: URLSearchParams): Promise<void> {
  main.append(h("h1", null, "Play"));
  const address = requireSignIn(main, "play");
  if (!address) return;
  const matchId = params.get("match");
  if (matchId) await renderMatch(main, matchId, address);
  else await renderLobby(main, params);
}

async function renderLobby(main: HTMLElement, params: URLSearchParams): Promise<void> {
  const games = await listGames();
  const decks = await myDecks();
  const preset = decks.find((d) => d.id === params.get("deck"));
  const gameSelect = h("select", { id: "new-game" }, ...games.map((g) => h("option", { value: g.name, selected: g.name === preset?.game }, g.title)));
  const deckSelect = h("select", { id: "new-deck" });
  const opponent = h(
    "select",
    { id: "new-opponent" },
    h("option", { value: "bot:greedy" }, "the bot (greedy)"),
    h("option", { value: "bot:random" }, "the bot (random)"),
    h("option", { value: "open" }, "a person (open seat, share the link)"),
  );
  const fillDecks = () => {
    const mine = decks.filter((d) => d.game === gameSelect.value);
    fill(deckSelect, mine.length ? mine.map((d) => h("option", { value: d.id, selected: d.id === preset?.id }, describeDeck(d))) : h("option", { value: "" }, "no saved deck: build one first"));
  };
  gameSelect.addEventListener("change", fillDecks);
  fillDecks();
  const create = action("Create match", async () => {
    if (!deckSelect.value) throw new Error("Save a deck of this game first (Decks page).");
    const [kind, bot] = opponent.value.split(":");
    const match = await api<Match>("POST", "/matches", {
      game: gameSelect.value,
      deck_id: deckSelect.value,
      opponent: kind,
      ...(bot ? { bot } : {}),
    });
    navigate(`/play?match=${match.id}`);
  }, { id: "create-match" });
  const mine = h("ul", { id: "my-matches" });
  const open = h("ul", { id: "open-matches" });
  main.append(
    h("section", { class: "form" }, h("h2", null, "New match"), h("label", null, "Game ", gameSelect), h("label", null, "Deck ", deckSelect), h("label", null, "Against ", opponent), create, h("p", null, h("a", { href: "/deck-builder" }, "Build a deck"))),
    h("section", null, h("h2", null, "Your matches"), mine),
    h("section", null, h("h2", null, "Open matches (join one)"), open),
  );
  const line = (m: Match) => h("li", null, h("a", { href: `/play?match=${m.id}` }, `${m.game} · ${short(m.id)}`), ` · ${m.status}${m.winner_seat !== null ? ` · won by player ${m.winner_seat + 1}` : ""}`);
  const mineList = await api<Match[]>("GET", "/matches?status=mine");
  fill(mine, mineList.length ? mineList.slice(0, 20).map(line) : h("li", { class: "note" }, "none yet"));
  const openList = (await api<Match[]>("GET", "/matches?status=open")).filter((m) => m.your_seat === null);
  fill(open, openList.length ? openList.map(line) : h("li", { class: "note" }, "none"));
}

async function renderMatch(main: HTMLElement, matchId: string, address: string): Promise<void> {
  let match = await api<Match>("GET", `/matches/${matchId}`);
  const cards = await indexOf(match.game);
  const heading = h("div", { class: "match-head" });
  const receipts = h("p", { id: "receipts", class: "ok", "data-checked": "0" });
  const status = h("p", { id: "match-status", class: "status", "aria-live": "polite" });
  const timer = h("span", { id: "turn-timer", class: "timer" });
  const boardBox = h("div", { id: "board" });
  const choices = h("div", { id: "actions", class: "choices", role: "group", "aria-label": "your legal actions" });
  const log = h("ol", { id: "log", class: "log", "aria-label": "match log" });
  const result = h("div", { id: "result", "aria-live": "polite" });
  const join = h("div", { id: "join" });
  main.append(heading, status, receipts, join, h("div", { class: "play" }, h("div", null, boardBox, choices), h("aside", null, h("h2", null, "Log"), log)), result);
  let logged = -1;
  let deadline: number | null = null;
  let seat: number | null = match.your_seat;
  let stopPolling: (() => void) | null = null;
  // a read that started before a move was applied must not draw the older board over it
  let moving = false;
  let newest = -1;
  let head: Hex | null = match.head_hash;
  let receiptsChecked = 0;
  const checkReceipts = async (rows: Applied[]) => {
    for (const a of rows) {
      if (!a.receipt || !a.entry_hash || !match.receipt_signer) continue;
      if (!(await receiptIsOperators(match.domain, match.id, a.index, a.entry_hash, a.receipt, match.receipt_signer))) {
        throw new Error(`the receipt of entry ${a.index} is not signed by the operator ${match.receipt_signer}`);
      }
      receiptsChecked += 1;
    }
    receipts.dataset.checked = String(receiptsChecked);
    fill(receipts, receiptsChecked ? `✓ ${receiptsChecked} operator receipts checked` : "");
  };

  const headLine = () =>
    fill(
      heading,
      h("h2", null, `${match.game} · match ${short(match.id)}`),
      h("p", null, ...match.seats.map((s) => h("span", { class: "seat" }, `Player ${s.seat + 1}: ${s.is_bot ? "the bot" : s.address === address ? "you" : short(s.address)} `))),
      match.status === "open" && seat !== null
        ? h("p", { class: "note" }, "Send this link to your opponent: ", h("input", { id: "join-link", readonly: true, value: location.href, size: 60, "aria-label": "join link" }))
        : null,
      match.status === "active" || match.status === "seeding" || match.status === "open"
        ? h("p", null, timer, " ", action("Resign", async () => {
            if (!confirm("Resign this match?")) return;
            const body =
              match.status === "active" && seat !== null && head !== null
                ? await signMove(match.domain, match.id, address, seat, match.version, head, ["resign"])
                : undefined;
            match = await api<Match>("POST", `/matches/${match.id}/resign`, body);
            await refresh();
          }, { id: "resign" }))
        : null,
    );

  const addLog = (rows: Applied[]) => {
    for (const a of rows) {
      if (a.index <= logged) continue;
      logged = a.index;
      log.append(h("li", { "data-index": a.index }, `${a.by_bot ? "bot" : a.seat === seat ? "you" : `player ${a.seat + 1}`}: ${a.label}`));
    }
    log.scrollTop = log.scrollHeight;
  };

  const showChoices = (legal: Legal[], yourTurn: boolean, version: number) => {
    if (!yourTurn || legal.length === 0) {
      fill(choices, match.status === "active" ? h("p", { class: "note" }, "Waiting for the opponent…") : null);
      return;
    }
    fill(
      choices,
      h("p", null, h("b", null, "Your move:")),
      ...legal.map((l, i) =>
        h("button", { type: "button", class: "move", "data-action": JSON.stringify(l.action), accesskey: i < 9 ? String(i + 1) : undefined, onclick: (e: Event) => void move(e.currentTarget as HTMLButtonElement, l, version) }, l.label),
      ),
    );
    (choices.querySelector("button.move") as HTMLButtonElement | null)?.focus({ preventScroll: true });
  };

  // the new turn deadline, read once the player pauses (not between quick clicks: a read that
  // races the next move's write only slows that move down)
  let deadlineTimer = 0;
  const rereadDeadline = () => {
    window.clearTimeout(deadlineTimer);
    deadlineTimer = window.setTimeout(() => {
      void api<Match>("GET", `/matches/${match.id}`).then((m) => {
        if (m.version === match.version) deadline = m.turn_deadline ? Date.parse(m.turn_deadline) : null;
      });
    }, DEADLINE_REREAD_MS);
  };

  const move = async (button: HTMLButtonElement, legal: Legal, version: number) => {
    const started = performance.now();
    for (const b of choices.querySelectorAll("button")) (b as HTMLButtonElement).disabled = true;
    moving = true;
    await busy(button, async () => {
      let out: ActionOut;
      let signedAt = 0;
      let answeredAt = 0;
      try {
        if (seat === null || head === null) throw new Error("this match has no signed transcript to extend");
        const signed = await signMove(match.domain, match.id, address, seat, version, head, legal.action);
        signedAt = performance.now();
        out = await api<ActionOut>("POST", `/matches/${match.id}/actions`, { action: legal.action, ...signed, version, include_view: true });
        answeredAt = performance.now();
      } catch (exc) {
        if (exc instanceof Problem && (exc.slug === "stale-turn" || exc.slug === "out-of-turn")) {
          await refresh();
        }
        throw exc;
      }
      metrics.fetches.push(performance.now() - started);
      newest = Math.max(newest, out.version);
      head = out.head_hash;
      moving = false;
      match = { ...match, version: out.version, status: out.status, current_player: out.current_player, winner_seat: out.winner_seat, end_reason: out.end_reason };
      if (out.observation) fill(boardBox, renderBoard(out.observation, seat, cards));
      addLog(out.applied);
      showChoices(out.legal_actions, out.your_turn, out.version);
      requestAnimationFrame(() => {
        const drawn = performance.now();
        metrics.moves.push(drawn - started);
        metrics.phases.push([signedAt - started, answeredAt - signedAt, drawn - answeredAt]);
        // the receipts' signatures are checked once the board is on screen, not before
        idle(() => void checkReceipts(out.applied).catch(showError));
      });
      if (out.status !== "active") await refresh();
      else rereadDeadline();
    });
    moving = false;
  };

  const seedStep = async () => {
    if (seat === null) return;
    const mine = match.seats.find((s) => s.seat === seat);
    if (!mine) return;
    if (!mine.seed_commit) {
      fill(status, "Committing to your seed secret…");
      const commit = commitOf(secretFor(match.id, address));
      const seatTerms = { domain: match.domain, matchId: match.id, game: match.game, rulesetVersion: match.ruleset_version, seat, deckHash: mine.deck_hash, seedCommit: commit };
      fill(status, "Authorize this match in your wallet (one signature: it lets this page sign your moves)…");
      match = await api<Match>("POST", `/matches/${match.id}/commit`, { commit, ...(await authorizeSeat(seatTerms, address)) });
      return seedStep();
    }
    const everyone = match.seats.length === 2 && match.seats.every((s) => s.seed_commit);
    if (match.status === "seeding" && everyone && !mine.revealed) {
      if (!hasSecret(match.id, address)) throw new Error("this match's seed secret was made in another browser: reveal it there");
      fill(status, "Revealing your seed secret…");
      match = await api<Match>("POST", `/matches/${match.id}/reveal`, { secret: secretFor(match.id, address) });
    }
  };

  // the end: the session key signs MatchEnd over the whole transcript, so the bot's last
  // replies are the players' record too, not only the operator's word
  const acknowledge = async () => {
    const mine = match.seats.find((x) => x.seat === seat);
    if (!mine || mine.acknowledged || !match.head_hash || !hasSessionKey(match.id, address)) return;
    const signature = await signEnd(match.domain, match.id, address, match.entries, match.head_hash);
    await api("POST", `/matches/${match.id}/acknowledge`, { signature });
    match = await api<Match>("GET", `/matches/${match.id}`);
  };

  const showResult = async () => {
    let r: Result;
    try {
      r = await api<Result>("GET", `/matches/${match.id}/result`);
    } catch (exc) {
      if (exc instanceof Problem && exc.status === 404) return void fill(result, match.status === "cancelled" ? h("p", null, "The match was cancelled.") : null);
      throw exc;
    }
    let anchored = r.batch_id !== null;
    if (anchored) {
      try {
        await api("GET", `/matches/${match.id}/bundle`);
      } catch (exc) {
        if (exc instanceof Problem && exc.status === 409) anchored = false;
        else throw exc;
      }
    }
    const won = match.winner_seat === null ? "a draw" : match.winner_seat === seat ? "you won" : "you lost";
    fill(
      result,
      h("h2", null, `Result: ${won}`, match.end_reason ? ` (${match.end_reason})` : ""),
      h("p", null, "Signed by the operator (", h("code", null, short(r.signer)), "), digest ", h("code", null, short(r.digest)), "."),
      anchored
        ? h("p", { id: "anchored", class: "ok" }, `✓ Anchored on-chain in batch ${r.batch_id}. `, h("a", { href: `/audit?match=${match.id}` }, "Audit this match"))
        : h("p", { id: "anchoring", class: "progress" }, h("progress", { "aria-label": "waiting for anchoring" }), " Waiting for the workers to anchor the result on-chain…"),
    );
    if (anchored) stopPolling?.();
  };

  const refresh = async () => {
    match = await api<Match>("GET", `/matches/${match.id}`);
    seat = match.your_seat;
    deadline = match.turn_deadline ? Date.parse(match.turn_deadline) : null;
    headLine();
    if (seat === null) {
      fill(status, `This match is ${match.status}.`);
      if (match.status === "open") await offerJoin(join, match, refresh);
      return;
    }
    if (match.status === "open" || match.status === "seeding") {
      await seedStep();
      if ((match.status as string) === "active") return refresh();
      fill(status, match.status === "open" ? "Waiting for an opponent to join…" : "Waiting for the seed commit-reveal…");
      return;
    }
    fill(join);
    if (match.status === "active" || match.status === "finished") {
      forgetSecret(match.id, address);
      const view = await api<View>("GET", `/matches/${match.id}/view`);
      const missed = logged < view.match.version - 1 ? await api<Applied[]>("GET", `/matches/${match.id}/actions?since=${logged + 1}&limit=1000`) : [];
      if (moving || view.match.version < newest) return; // a move overtook this read
      newest = view.match.version;
      match = view.match;
      head = view.match.head_hash;
      if (view.observation) fill(boardBox, renderBoard(view.observation, seat, cards));
      addLog(missed);
      void checkReceipts(missed).catch(showError);
      showChoices(view.legal_actions, view.your_turn, view.match.version);
      fill(status, match.status === "active" ? (view.your_turn ? "Your turn." : "The opponent's turn.") : `The match is over${match.end_reason ? ` (${match.end_reason})` : ""}.`);
    } else {
      fill(status, `This match is ${match.status}.`);
    }
    if (match.status === "finished" && seat !== null) await acknowledge();
    if (match.status === "finished" || match.status === "cancelled") {
      fill(choices);
      await showResult();
    }
  };

  const tick = () => {
    if (!timer.isConnected) return;
    if (deadline === null || match.status !== "active") fill(timer);
    else {
      const left = Math.max(0, Math.round((deadline - Date.now()) / 1000));
      fill(timer, `⏱ ${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")} left for ${match.current_player === seat ? "your" : "the opponent's"} move`);
    }
  };
  await refresh();
  watch(tick, 1000);
  // wait for the other side (its move, its commitment, the anchoring), never while it is your
  // move: pushed by the API's event stream where it has one, else polled (see live.ts)
  const poll = async () => {
    if (match.status === "active" && match.current_player === seat && choices.querySelector("button.move")) return;
    if (match.status === "cancelled") return;
    await refresh();
  };
  let again = false;
  let running: Promise<void> | null = null;
  const pushed = async () => {
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      do {
        again = false;
        if (!moving) await refresh().catch(() => {});
      } while (again);
    })();
    await running;
    running = null;
  };
  // an entry the page already has (its own move and the bot's replies come back in the POST's
  // answer) needs no re-read: only news beyond it, or the end, does
  const onEvent = (type: string, data: string) => {
    if (type === "action") {
      try {
        if ((JSON.parse(data) as { index: number }).index < newest) return;
      } catch {
        // not an entry: re-read
      }
    }
    void pushed();
  };
  const onPush = await listen(`/matches/${match.id}/events`, onEvent, () => {
    stopPolling?.();
    main.dataset.updates = "poll";
    stopPolling = watch(poll, POLL_MS);
  });
  main.dataset.updates = onPush ? "push" : "poll";
  stopPolling = watch(poll, onPush ? PUSHED_SAFETY_POLL_MS : POLL_MS);
}

async function offerJoin(box: HTMLElement, match: Match, refresh: () => Promise<void>): Promise<void> {
  const decks = (await myDecks()).filter((d) => d.game === match.game);
  const select = h("select", { id: "join-deck" }, ...decks.map((d) => h("option", { value: d.id }, describeDeck(d))));
  fill(
    box,
    h("h2", null, "Join this match"),
    decks.length ? h("label", null, "Your deck ", select) : h("p", null, "Save a ", match.game, " deck first: ", h("a", { href: "/deck-builder" }, "Decks")),
    decks.length
      ? action("Join", async () => {
          await api("POST", `/matches/${match.id}/join`, { deck_id: select.value });
          notify("Joined: the seed commit-reveal starts.");
          await refresh();
        }, { id: "join-match" })
      : null,
  );
}


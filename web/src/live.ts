// Keeping a page up to date: server-sent events where the API pushes them, else polling.
// `listen` reads an event stream with fetch (so the session's bearer token goes along, which
// EventSource cannot send): GET /matches/{id}/events, GET /wallets/{address}/events. When a
// stream cannot be opened or drops, the page falls back to `watch`, re-reading what it shows
// every `everyMs` — a POLLING FALLBACK. The router stops both when the page changes (stopAll).

import { session } from "./session";

const timers = new Set<number>();
const streams = new Set<AbortController>();

/** Call `refresh` every `everyMs` until the page changes; the returned function stops it. */
export function watch(refresh: () => Promise<void> | void, everyMs: number): () => void {
  let busy = false;
  const id = window.setInterval(async () => {
    if (busy || document.hidden) return;
    busy = true;
    try {
      await refresh();
    } catch {
      // a failed refresh is retried on the next tick; the page shows errors of its own actions
    } finally {
      busy = false;
    }
  }, everyMs);
  timers.add(id);
  return () => {
    window.clearInterval(id);
    timers.delete(id);
  };
}

/** Open the server-sent event stream at `path` and call `onEvent(type, data)` for each event.
 * Resolves to false at once when the API answers without a stream (the caller polls instead),
 * otherwise to true; the stream is read until the page changes or it ends (`onEnd`). */
export async function listen(
  path: string,
  onEvent: (type: string, data: string) => void,
  onEnd: () => void = () => {},
): Promise<boolean> {
  const control = new AbortController();
  const headers: Record<string, string> = { Accept: "text/event-stream" };
  const token = session.token();
  if (token) headers.Authorization = `Bearer ${token}`;
  let response: Response;
  try {
    response = await fetch(path, { headers, signal: control.signal });
  } catch {
    return false;
  }
  if (!response.ok || !response.body || !(response.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
    control.abort();
    return false;
  }
  streams.add(control);
  void (async () => {
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end: number;
        while ((end = buffer.search(/\r?\n\r?\n/)) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end).replace(/^\r?\n\r?\n/, "");
          let type = "message";
          const data: string[] = [];
          for (const line of block.split(/\r?\n/)) {
            if (line.startsWith("event:")) type = line.slice(6).trim();
            else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
          }
          if (data.length || type !== "message") onEvent(type, data.join("\n"));
        }
      }
    } catch {
      // aborted (the page changed) or the connection dropped
    } finally {
      streams.delete(control);
      if (!control.signal.aborted) onEnd();
    }
  })();
  return true;
}

/** Stop every watcher and stream (the page is being replaced). */
export function stopAll(): void {
  for (const id of timers) window.clearInterval(id);
  timers.clear();
  for (const control of streams) control.abort();
  streams.clear();
}

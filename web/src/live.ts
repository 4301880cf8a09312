// Keeping a page up to date. POLLING FALLBACK: the API does not push events yet (server-sent
// events arrive with issue 15); until then a page re-reads what it shows every `everyMs`.
// Each watcher stops when the page changes (the router calls stopAll).

const timers = new Set<number>();

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

/** Stop every watcher (the page is being replaced). */
export function stopAll(): void {
  for (const id of timers) window.clearInterval(id);
  timers.clear();
}

// Moving between the app's pages without a reload (main.ts listens for the event).

/** Go to an app path, e.g. "/play?match=0x…". */
export function navigate(path: string): void {
  history.pushState(null, "", path);
  window.dispatchEvent(new Event("metaledger:navigate"));
}
